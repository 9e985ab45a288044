/**
 * Child process of durable-in-process-scheduler.int.spec.ts: schedules one job on the durable in-process scheduler
 * with a worker that never finishes, prints "scheduled" once schedule() resolved, and waits to be killed.
 */
import { InProcessScheduler } from '../in-process-scheduler.js';

const file = process.argv[2];
if (!file) throw new Error('usage: schedule-then-wait.ts <jobs.sqlite>');
const scheduler = new InProcessScheduler({ durable: { file } });
// The job is taken up at once and never completes: the kill comes while it is active, as an inbound message's
// processing would be.
await scheduler.process('inbound', () => new Promise<void>(() => undefined));
await scheduler.schedule({ queue: 'inbound', jobId: 'acknowledged', data: { text: 'hello' }, attempts: 8 });
process.stdout.write('scheduled\n');
setInterval(() => undefined, 60_000);
