// Test fixture, run as a separate process by sqlite-event-store.int.spec.ts: appends `count` single-event
// batches to one stream of the given file, so two of these contend for SQLite's write lock for real.
import { SqliteEventStore } from './sqlite-event-store.js';

const [file, streamId, count, label, startAt] = process.argv.slice(2);
if (!file || !streamId || !count || !label || !startAt)
  throw new Error('usage: append-worker.fixture.ts <file> <streamId> <count> <label> <startAtEpochMs>');
const store = SqliteEventStore.open({ file, busyTimeoutMs: 30_000 });
// Both workers start appending at the same moment, whatever their start-up times were.
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
try {
  for (let i = 0; i < Number(count); i++)
    await store.append(streamId, [{ type: 'Appended', data: { label, i } }], { expectedVersion: 'any' });
} finally {
  await store.close();
}
