/**
 * Cost of the all-in-one scheduler's journal: schedule and cancel 20k delayed jobs in memory, then with the SQLite
 * journal (one autocommit write each). Run: node --import @swc-node/register/esm-register libs/platform/scheduling/bench/durable-schedule.bench.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InProcessScheduler } from '../src/in-process/in-process-scheduler.js';
const N = 20_000;
for (const durable of [false, true]) {
  const dir = mkdtempSync(join(tmpdir(), 'jb-'));
  const s = new InProcessScheduler(durable ? { durable: { file: join(dir, 'jobs.sqlite') } } : {});
  const t0 = performance.now();
  for (let i = 0; i < N; i++)
    await s.schedule({ queue: 'q', jobId: `idle:${i}`, data: { sessionId: `s${i}`, generation: 3 }, delayMs: 1_800_000 });
  const t1 = performance.now();
  for (let i = 0; i < N; i++) await s.cancel('q', `idle:${i}`);
  const t2 = performance.now();
  console.log(
    `${durable ? 'durable' : 'memory '}: schedule ${(((t1 - t0) * 1000) / N).toFixed(1)} µs/job, cancel ${(((t2 - t1) * 1000) / N).toFixed(1)} µs/job`,
  );
  await s.close();
  rmSync(dir, { recursive: true, force: true });
}
