import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';

interface Frame {
  offset: number;
  kind: string;
  source: string;
  data: Record<string, unknown>;
}

/** Reads `data:` frames of a text/event-stream until `count` arrived or the stream ended. */
async function frames(response: Response, count: number): Promise<{ frames: Frame[]; ended: boolean }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const out: Frame[] = [];
  for (;;) {
    if (out.length >= count) {
      await reader.cancel();
      return { frames: out, ended: false };
    }
    const { value, done } = await reader.read();
    if (done) return { frames: out, ended: true };
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = frame.split('\n').find((line) => line.startsWith('data: '));
      if (data) out.push(JSON.parse(data.slice(6)) as Frame);
    }
  }
}

describe('session events as Server-Sent Events (sse=true)', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-sse-'));
    ({ app, url } = await startAllInOne({ TENET_DATA_DIR: dir }));
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = async <T>(path: string, body: unknown): Promise<T> =>
    (await (await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as T;

  it('streams existing events, then events appended later, filtered, as data frames in offset order; ends after wait_for_data without events', async () => {
    const agent = await post<{ id: string }>('/agents', { name: 'Quiet' });
    const session = await post<{ id: string }>('/sessions', { agent_id: agent.id });
    await post(`/sessions/${session.id}/events`, { kind: 'custom', source: 'customer_ui', data: { page: 1 } });
    await post(`/sessions/${session.id}/events`, { kind: 'message', source: 'human_agent', message: 'Hi, Bob here' });
    const response = await fetch(`${url}/sessions/${session.id}/events?sse=true&kinds=custom&wait_for_data=2`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reading = frames(response, 10);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await post(`/sessions/${session.id}/events`, { kind: 'custom', source: 'customer_ui', data: { page: 2 } });
    await post(`/sessions/${session.id}/events`, { kind: 'message', source: 'human_agent', message: 'not a custom event' });
    const { frames: got, ended } = await reading;
    expect(ended).toBe(true);
    expect(got.map((f) => [f.offset, f.kind, f.data])).toEqual([
      [0, 'custom', { page: 1 }],
      [2, 'custom', { page: 2 }],
    ]);
  });

  it('starts at min_offset, answers 404 for an unknown session and 422 for a bad parameter, and stops waiting when the client leaves', async () => {
    const agent = await post<{ id: string }>('/agents', { name: 'Quiet' });
    const session = await post<{ id: string }>('/sessions', { agent_id: agent.id });
    for (let i = 0; i < 3; i++) await post(`/sessions/${session.id}/events`, { kind: 'custom', source: 'customer_ui', data: { i } });
    const response = await fetch(`${url}/sessions/${session.id}/events?sse=true&min_offset=1&wait_for_data=60`);
    const { frames: got } = await frames(response, 2);
    expect(got.map((f) => f.offset)).toEqual([1, 2]);
    expect((await fetch(`${url}/sessions/nope/events?sse=true`)).status).toBe(404);
    const bad = await fetch(`${url}/sessions/${session.id}/events?sse=true&wait_for_data=-1`);
    expect(bad.status).toBe(422);
    // The client went away mid-wait (60 s): closing the app must not wait for that wait to run out.
    const closing = Date.now();
    await app.close();
    expect(Date.now() - closing).toBeLessThan(10_000);
    ({ app, url } = await startAllInOne({ TENET_DATA_DIR: dir }));
  });
});
