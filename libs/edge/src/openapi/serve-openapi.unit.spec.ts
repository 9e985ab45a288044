import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import express, { Router, type ErrorRequestHandler } from 'express';
import { serveOpenApiOnFirstRequest } from './serve-openapi.js';

describe('serveOpenApiOnFirstRequest', () => {
  let server: Server;
  let base: string;
  let builds: number;

  /** An Express application standing in for Nest's (only `use` is called), with a build that fails the first time. */
  beforeEach(async () => {
    builds = 0;
    const http = express();
    serveOpenApiOnFirstRequest(http as unknown as INestApplication, async () => {
      builds += 1;
      if (builds === 1) throw new Error('swagger failed to load');
      const router = Router();
      router.get('/openapi.json', (_req, res) => void res.json({ openapi: '3.0.0', build: builds }));
      return router;
    });
    http.get('/other', (_req, res) => void res.send('other'));
    const onError: ErrorRequestHandler = (error: Error, _req, res, _next) => void res.status(500).send(error.message);
    http.use(onError);
    server = http.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(() => new Promise((resolve) => server.close(resolve)));

  it('builds nothing until the description is asked for', async () => {
    expect(await (await fetch(`${base}/other`)).text()).toBe('other');
    expect(builds).toBe(0);
  });

  it('answers a failed build with its error, then builds again on the next request and keeps that one', async () => {
    const failed = await fetch(`${base}/openapi.json`);
    expect(failed.status).toBe(500);
    expect(await failed.text()).toBe('swagger failed to load');

    const second = await fetch(`${base}/openapi.json`);
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({ openapi: '3.0.0', build: 2 });

    await fetch(`${base}/openapi.json`);
    expect(builds).toBe(2);
  });
});
