import { jest } from '@jest/globals';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { eventually } from '@tenet/testing';
import { SQLITE_KNOWLEDGE_FILE, SqliteKnowledgeIndex } from './sqlite-knowledge-index.js';
import {
  answersWithoutSnapshot,
  expectSameAnswers,
  lexicalAnswers,
  lexicalCorpus,
  snapshotOf,
  tempDirs,
} from './testing/lexical-corpus.js';

const dirs = tempDirs('tenet-knowledge-bm25-');
afterAll(() => dirs.removeAll());
const tempDir = dirs.make;
const { source, chunks, words } = lexicalCorpus({
  vocabulary: 60,
  words: { min: 5, spread: 30 },
  perSource: 40,
  statedChunkCount: 0,
  embeddingModel: 'test/bm25/4',
});
const ingest = async (index: SqliteKnowledgeIndex, sourceId: string, seed: number, agentIds: string[] = [], workspaceId?: string) =>
  index.replaceSource(source(sourceId, agentIds, workspaceId), chunks(sourceId, seed));

const QUERIES = ['w1ord w5ord', 'w0ord', 'w3ord w1aord w10ord w2ord', 'w1pord', 'w7ord w8ord w9ord'];
const answers = (index: SqliteKnowledgeIndex) => lexicalAnswers(index, QUERIES, 15);
const expectSame = (actual: [string, number][][], expected: [string, number][][]) => expectSameAnswers(actual, expected, 50);
/** A few sources in two workspaces and three agent-tag sets, one deleted. */
async function fill(index: SqliteKnowledgeIndex): Promise<void> {
  await ingest(index, 'a', 1);
  await ingest(index, 'b', 2, ['agent-1']);
  await ingest(index, 'c', 3, ['agent-1', 'agent-2']);
  await ingest(index, 'd', 4, [], 'ws-b');
  await ingest(index, 'e', 5, ['agent-2'], 'ws-b');
  await index.deleteSource('c');
}
const warnings = () => jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);

describe('SqliteKnowledgeIndex BM25 snapshot (ADR 0034, amendment "BM25 snapshot")', () => {
  afterEach(() => jest.restoreAllMocks());

  it('is written on close and loaded on open, and answers like an index rebuilt from the rows, also after adds and removals since it was saved', async () => {
    const dir = tempDir();
    const first = new SqliteKnowledgeIndex({ dataDir: dir });
    await first.whenLexicalReady();
    await fill(first);
    const before = await answers(first);
    await first.close();
    expect(first.lexicalSnapshot.bytes).toBe(statSync(snapshotOf(dir)).size);

    const second = new SqliteKnowledgeIndex({ dataDir: dir });

    await second.whenLexicalReady();
    expect(second.lexicalSnapshot.loaded).toBe(true);
    expectSame(await answers(second), before);
    // Changed after the save: the next open loads this snapshot (older than the log) and applies the rest.
    const older = readFileSync(snapshotOf(dir));
    await ingest(second, 'f', 6, ['agent-1']);
    await second.deleteSource('a');
    await ingest(second, 'b', 7, ['agent-1']); // replaced: its old rows removed, new ones added
    await ingest(second, 'g', 8, [], 'ws-b');
    const changed = await answers(second);
    await second.close();
    writeFileSync(snapshotOf(dir), older);

    const third = new SqliteKnowledgeIndex({ dataDir: dir });

    await third.whenLexicalReady();
    try {
      expect(third.lexicalSnapshot.loaded).toBe(true);
      const found = await answers(third);
      expectSame(found, changed);
      expectSame(found, await answersWithoutSnapshot(dir, answers));
      expect(found.flat().map(([id]) => id.split(':')[0])).not.toContain('a');
      expect(found.flat().map(([id]) => id.split(':')[0])).toContain('g');
    } finally {
      await third.close();
    }
  });

  it('falls back to rebuilding from the rows when the file is damaged, truncated or of another format, and writes a good one on close', async () => {
    const dir = tempDir();
    const first = new SqliteKnowledgeIndex({ dataDir: dir });
    await first.whenLexicalReady();
    await fill(first);
    const expected = await answers(first);
    await first.close();
    const good = readFileSync(snapshotOf(dir));
    const flipped = Buffer.from(good);
    const at = Math.floor(flipped.length * 0.6);
    flipped.writeUInt8(flipped.readUInt8(at) ^ 0x10, at);
    const otherFormat = Buffer.from(good);
    otherFormat.writeUInt32LE(0, 8);
    const damaged: [string, () => void][] = [
      ['a flipped byte', () => writeFileSync(snapshotOf(dir), flipped)],
      ['truncated', () => truncateSync(snapshotOf(dir), Math.floor(good.length / 2))],
      ['another format', () => writeFileSync(snapshotOf(dir), otherFormat)],
      ['empty', () => writeFileSync(snapshotOf(dir), '')],
      ['not a snapshot', () => writeFileSync(snapshotOf(dir), 'SQLite format 3\u0000 and more bytes than a header')],
    ];
    for (const [what, damage] of damaged) {
      writeFileSync(snapshotOf(dir), good);
      damage();
      const warn = warnings();
      const reopened = new SqliteKnowledgeIndex({ dataDir: dir });
      await reopened.whenLexicalReady();
      try {
        expect([what, reopened.lexicalSnapshot.loaded]).toEqual([what, false]);
        expect(warn).toHaveBeenCalledWith(expect.stringContaining('BM25 snapshot'));
        expectSame(await answers(reopened), expected);
      } finally {
        await reopened.close();
        warn.mockRestore();
      }
      const again = new SqliteKnowledgeIndex({ dataDir: dir });
      await again.whenLexicalReady();
      expect([what, again.lexicalSnapshot.loaded]).toEqual([what, true]);
      await again.close();
    }
  });

  it('after a kill (no close): opens right from no snapshot, and from the one written in the background once enough changed', async () => {
    const dir = tempDir();
    const killed = new SqliteKnowledgeIndex({ dataDir: dir });
    await killed.whenLexicalReady();
    const others: SqliteKnowledgeIndex[] = [];
    try {
      await fill(killed);
      // Never closed: nothing saved, the next open (another process's, as after a kill) rebuilds from the rows.
      const next = new SqliteKnowledgeIndex({ dataDir: dir });
      await next.whenLexicalReady();
      others.push(next);
      expect(existsSync(snapshotOf(dir))).toBe(false);
      expect(next.lexicalSnapshot.loaded).toBe(false);
      expectSame(await answers(next), await answers(killed));

      // 5,000 rows since the last save (none) call for one in the background, off the write path.
      for (let s = 0; s < 125; s++)
        await ingest(killed, `bulk-${s}`, 100 + s, s % 3 === 0 ? ['agent-1'] : [], s % 4 === 0 ? 'ws-b' : undefined);
      await eventually(() => expect(killed.lexicalSnapshot.bytes).toBeGreaterThan(0), { timeoutMs: 20_000 });
      expect(statSync(snapshotOf(dir)).size).toBe(killed.lexicalSnapshot.bytes);
      await ingest(killed, 'late', 9, ['agent-2']);
      await killed.deleteSource('bulk-7');
      const afterKill = new SqliteKnowledgeIndex({ dataDir: dir });
      await afterKill.whenLexicalReady();
      others.push(afterKill);
      expect(afterKill.lexicalSnapshot.loaded).toBe(true);
      const found = await answers(afterKill);
      expectSame(found, await answers(killed));
      const every = new Set((await afterKill.lexical({ text: words.join(' '), k: 10_000 })).map((h) => h.chunk.sourceId));
      expect(every.has('late')).toBe(true);
      expect(every.has('bulk-7')).toBe(false);
      expect(every.size).toBe(4 + 124 + 1);
    } finally {
      for (const index of others) await index.close();
      await killed.close();
    }
  });

  it('keeps working when the snapshot cannot be read or written: a warning, the rows, and a close that resolves', async () => {
    const dir = tempDir();
    mkdirSync(join(snapshotOf(dir), 'in-the-way'), { recursive: true });
    const warn = warnings();
    const index = new SqliteKnowledgeIndex({ dataDir: dir });
    await index.whenLexicalReady();
    await fill(index);
    expect((await index.lexical({ text: 'w0ord', k: 5 })).length).toBe(5);
    await expect(index.close()).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('not written'));
    expect(index.lexicalSnapshot.bytes).toBeUndefined();
  });

  it('a capture for a background save that two writes interrupt before it resumes holds the index as it was (it used to spin forever)', async () => {
    const index = new SqliteKnowledgeIndex({ dataDir: tempDir() });
    try {
      await index.whenLexicalReady();
      // 1,200 chunks: the capture yields after its first 1,024 documents.
      for (let s = 0; s < 30; s++) await ingest(index, `s${s}`, s);
      const internals = index as unknown as { captureText(): Promise<{ docs: { id: Int32Array } }> };
      // A clock that jumps 20 ms a reading: the capture's first slice ends at its first yield.
      const now = performance.now.bind(performance);
      let skew = 0;
      const clock = jest.spyOn(performance, 'now').mockImplementation(() => now() + (skew += 20));
      const capture = internals.captureText();
      clock.mockRestore();
      // Each write finishes a capture under way before it changes the index; the second finds it finished.
      const writes = [ingest(index, 'late-1', 101), ingest(index, 'late-2', 102)];
      expect((await capture).docs.id.length).toBe(30 * 40);
      await Promise.all(writes);
    } finally {
      await index.close();
    }
  });

  it('ignores a snapshot ahead of the log (the database put back to an older copy), and one holding other documents than the rows', async () => {
    const dir = tempDir();
    const db = join(dir, SQLITE_KNOWLEDGE_FILE);
    const first = new SqliteKnowledgeIndex({ dataDir: dir });
    await first.whenLexicalReady();
    await ingest(first, 'a', 1);
    await first.close();
    copyFileSync(db, `${db}.backup`);
    const second = new SqliteKnowledgeIndex({ dataDir: dir });
    await second.whenLexicalReady();
    await ingest(second, 'b', 2);
    await second.deleteSource('b');
    await ingest(second, 'c', 3);
    await second.close();
    const ahead = readFileSync(snapshotOf(dir));

    // The older copy back: the snapshot (a, c) is ahead of its log (a).
    copyFileSync(`${db}.backup`, db);
    let warn = warnings();
    const restored = new SqliteKnowledgeIndex({ dataDir: dir });
    await restored.whenLexicalReady();
    try {
      expect(restored.lexicalSnapshot.loaded).toBe(false);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('ahead of the log'));
      // Deleted at once, so more writes cannot bring the log level with it again before the next save.
      expect(existsSync(snapshotOf(dir))).toBe(false);
      const found = (await restored.lexical({ text: 'w0ord w1ord w2ord', k: 100 })).map((h) => h.chunk.sourceId);
      expect(new Set(found)).toEqual(new Set(['a']));
      // The log grows past the snapshot's watermark with other rows (d, then a deleted), unsaved.
      await ingest(restored, 'd', 4);
      await ingest(restored, 'e', 5);
      await restored.deleteSource('a');
      await restored.deleteSource('e');
    } finally {
      warn.mockRestore();
    }
    const expected = await answers(restored);
    // Put the old timeline's snapshot back as if it had been left there: its watermark is reached, its documents are not the rows'.
    writeFileSync(snapshotOf(dir), ahead);
    warn = warnings();
    const reopened = new SqliteKnowledgeIndex({ dataDir: dir });
    await reopened.whenLexicalReady();
    try {
      expect(reopened.lexicalSnapshot.loaded).toBe(false);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('other documents'));
      expectSame(await answers(reopened), expected);
    } finally {
      await reopened.close();
      await restored.close();
    }
  });
});
