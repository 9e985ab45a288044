/**
 * The floor of `npm run bench:startup`: the smallest process that does what every Tenet service does at rest — a
 * NestJS application (Express) with one HTTP controller (`GET /healthz`) and a NATS connection. Plain JavaScript
 * (decorators applied as functions), so it runs with plain node for both the source and the compiled variant.
 * PORT and NATS_URL as the services read them.
 */
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { connect } from '@nats-io/transport-node';

const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });

class HealthController {
  healthz() {
    return { status: 'ok', nats: nc.isClosed() ? 'closed' : 'connected' };
  }
}
Get('healthz')(HealthController.prototype, 'healthz', Object.getOwnPropertyDescriptor(HealthController.prototype, 'healthz'));
Controller()(HealthController);

class FloorModule {}
Module({ controllers: [HealthController] })(FloorModule);

const app = await NestFactory.create(FloorModule, { logger: ['error', 'warn'] });
await app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
