import { Module } from '@nestjs/common';
import { JourneyEngine } from './journey-engine.js';
import { JourneysRpcController } from './journeys.rpc.controller.js';

/**
 * The journey engine: answers `tenet.rpc.v1.journeys.advance` on the bus (queue group `journey-engine`; needs
 * the host to connect TenetTransport). `apps/journey-engine` runs it alone; the all-in-one host composes it.
 */
@Module({ controllers: [JourneysRpcController], providers: [JourneyEngine], exports: [JourneyEngine] })
export class JourneyEngineModule {}
