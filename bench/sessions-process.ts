/**
 * The all-in-one host of the idle-sessions benchmark (started by bench/sessions.bench.ts, run with --expose-gc):
 * `startAllInOne` as `npm start` runs it (TENET_MODE=embedded: in-process bus, SQLite log in TENET_DATA_DIR,
 * in-process timers), offline provider, no demo. Prints `ready <url>` once it serves; then answers lines on stdin:
 *
 *   memory             collect all garbage (see collect) and print `memory {"rss":…,"heapUsed":…}`
 *   snapshot <file>    collect garbage and write a V8 heap snapshot to <file>, then print `snapshot <file>`
 *
 * Exits on SIGTERM.
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { writeHeapSnapshot } from 'node:v8';
import { startAllInOne } from '@tenet/hosts';

type Gc = (options?: { type?: 'major' | 'minor'; execution?: 'sync' | 'async'; flavor?: 'regular' | 'last-resort' }) => void;
const gc = (globalThis as { gc?: Gc }).gc;
if (gc === undefined) throw new Error('bench/sessions-process.ts needs node --expose-gc');

/**
 * V8's last-resort collection (several full GCs that compact the heap and give its free pages back, as under memory
 * pressure), then a pause for the pages to be unmapped: a plain gc() leaves the heap as fragmented and as large as
 * the last burst of work made it, so RSS would move by ±100 MB with whatever ran before, not with what is kept.
 */
const collect = async (): Promise<void> => {
  for (let round = 0; round < 2; round++) {
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
};

const env = Object.fromEntries(
  Object.entries({ TENET_DEMO: 'off', TENET_LLM_PROVIDER: 'offline', ...process.env, TENET_MODE: 'embedded' }).filter(
    (entry): entry is [string, string] => entry[1] !== undefined,
  ),
);
const host = await startAllInOne(env);
process.once('SIGTERM', () => void host.app.close().then(() => process.exit(0)));

createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, argument] = line.trim().split(' ');
  void (async () => {
    await collect();
    if (command === 'memory') {
      const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
      // RSS split as the kernel counts it: anonymous (heaps, malloc) vs file-backed (code, mmapped files) vs shared memory (SQLite's -shm).
      const status = readFileSync('/proc/self/status', 'utf8');
      const kb = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) * 1024;
      const memory = {
        rss,
        heapUsed,
        heapTotal,
        external,
        arrayBuffers,
        rssAnon: kb('RssAnon'),
        rssFile: kb('RssFile'),
        rssShmem: kb('RssShmem'),
      };
      process.stdout.write(`memory ${JSON.stringify(memory)}\n`);
    } else if (command === 'snapshot' && argument) {
      process.stdout.write(`snapshot ${writeHeapSnapshot(argument)}\n`);
    } else {
      process.stderr.write(`unknown command "${line}" (memory | snapshot <file>)\n`);
    }
  })();
});
process.stdout.write(`ready ${host.url}\n`);
