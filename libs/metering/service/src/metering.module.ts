import { Module } from '@nestjs/common';
import { MeteringController } from './metering.controller.js';
import { TokenRecords } from './token-records.js';

/**
 * Metering: consumes `metering.llm_usage_recorded` events into token records and answers usage summaries on
 * the bus (the gateway serves them as `GET /agents/{id}/usage`). Needs PlatformModule and TenetTransport.
 */
@Module({ controllers: [MeteringController], providers: [TokenRecords] })
export class MeteringModule {}
