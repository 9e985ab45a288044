import { createHash } from 'node:crypto';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { STOP_WORDS } from '@tenet/text';
import { termsOf, type Bm25State } from './bm25-partitions.js';
import { stepsToEnd } from './steps.js';

/**
 * The BM25 index saved next to its database (ADR 0034, "Lexical side", amendment "BM25 snapshot"), so an open
 * loads it and applies the text rows after its watermark instead of tokenizing every chunk again.
 *
 * Layout (little-endian; every section starts on an 8-byte boundary):
 *   0  magic "TNTBM25\n" · 8 u32 format · 12 u32 0x01020304 (byte order) · 16 u32 header length ·
 *   20 u32 CRC-32 of everything from byte 32 · 24 f64 file length · 32 header (JSON: what the sections hold, the
 *   database's graph epoch, the text watermark, the tokenizer's fingerprint, the live documents' count and id sum) ·
 *   then the sections, typed arrays written as they are in memory: term byte lengths, term UTF-8 bytes; per list
 *   term, size, live, max tf, min length; postings' documents, tfs, lengths; documents' ids, partitions, lengths,
 *   term counts, term ids; removed documents' ids and partitions.
 */
export const BM25_SNAPSHOT_FORMAT = 1;
const MAGIC = Buffer.from('TNTBM25\n', 'latin1');
const BYTE_ORDER = 0x01020304;
const PREFIX = 32;
/** Bytes checksummed, and terms decoded, between two steps of a read (`parseBm25Snapshot`): a few ms each. */
const CRC_STEP = 4 * 1024 * 1024;
const STEP_TERMS = 8_192;
/** Longest stretch of a save's or a load's work between two turns of the event loop (the knowledge index's slice). */
const SLICE_MS = 10;
/** Bytes copied per write: the event loop gets a turn between writes of a background save. */
const WRITE_CHUNK = 4 * 1024 * 1024;

/** What the snapshot says about where it stands; compared with the database before it is used. */
export interface Bm25SnapshotMeta {
  /** The database's graph epoch (knowledge_meta): a file left by another database, or by this one before a rebuild, does not match. */
  epoch: string;
  /** The text rows and removals applied. */
  watermark: { adds: number; removes: number };
  /** The live documents: their count and the sum of their ids (row ids), to be checked against the rows. */
  docs: number;
  docIdSum: number;
}

interface Header extends Bm25SnapshotMeta {
  tokenizer: string;
  partitions: Bm25State<'whole'>['partitions'];
  counts: { terms: number; termBytes: number; lists: number; postings: number; docs: number; docTerms: number; removed: number };
}

/**
 * The tokenizer's fingerprint: the stop words and the terms of a probe text. Postings are terms as the tokenizer
 * and stemmer of the version that wrote them produced; a snapshot of another one is rebuilt, not loaded. A probe
 * catches a change of the stop words or of the rules it exercises, not every possible change.
 */
export const TOKENIZER_FINGERPRINT = createHash('sha256')
  .update([...STOP_WORDS].sort().join(' '))
  .update('\u0000')
  .update(
    termsOf(
      "Refunds refunded refunding queries boxes wishes matches buses glass status, the customer's don't I've; café naïve " +
        'Straße ÉCOLE 3.5 km/h e-mail x-ray 2026-11-28 running ponies hoped studies Ünïcödé 東京 Ελλάδα',
    ).join(' '),
  )
  .digest('hex')
  .slice(0, 16);

/** Why a snapshot was not loaded: said in the warning, so it names no content. */
export class Bm25SnapshotError extends Error {}

const pad8 = (n: number): number => (n + 7) & ~7;
type View = Int32Array | Uint32Array | Uint16Array | Uint8Array;

/** A section's arrays, each with how many of its elements are written (a postings list's arrays hold more than its size). */
type Section = { array: View; count: number }[];
const whole = (array: View): Section => [{ array, count: array.length }];

/** The sections in file order (`readBm25Snapshot` takes them in the same order). */
function sections(state: Bm25State<'parts'>, termBytes: Uint8Array, termLengths: Uint32Array): Section[] {
  const lists = (arrays: View[]): Section => arrays.map((array, i) => ({ array, count: state.lists.size[i] ?? 0 }));
  return [
    whole(termLengths),
    whole(termBytes),
    whole(state.lists.term),
    whole(state.lists.size),
    whole(state.lists.live),
    whole(state.lists.maxTf),
    whole(state.lists.minLength),
    lists(state.postings.docs),
    lists(state.postings.tfs),
    lists(state.postings.lengths),
    whole(state.docs.id),
    whole(state.docs.partition),
    whole(state.docs.length),
    whole(state.docs.termCount),
    state.docs.terms.map((array) => ({ array, count: array.length })),
    whole(state.removed.id),
    whole(state.removed.partition),
  ];
}

/** The file's header for a captured index, and its sections, in steps (a pass over the terms, the documents, the lists). */
function* headerOf(
  state: Bm25State<'parts'>,
  at: Pick<Bm25SnapshotMeta, 'epoch' | 'watermark'>,
): Generator<void, { header: Buffer; parts: Section[] }> {
  const encoder = new TextEncoder();
  const encoded: Uint8Array[] = [];
  for (const term of state.terms) {
    encoded.push(encoder.encode(term));
    if (encoded.length % STEP_TERMS === 0) yield;
  }
  const termLengths = Uint32Array.from(encoded, (e) => e.length);
  const termBytes = new Uint8Array(termLengths.reduce((n, l) => n + l, 0));
  let offset = 0;
  for (const e of encoded) {
    termBytes.set(e, offset);
    offset += e.length;
  }
  yield;
  let docIdSum = 0;
  for (const id of state.docs.id) docIdSum += id;
  yield;
  const parts = sections(state, termBytes, termLengths);
  yield;
  const count = (section: Section): number => section.reduce((n, p) => n + p.count, 0);
  const header: Header = {
    epoch: at.epoch,
    watermark: at.watermark,
    docs: state.docs.id.length,
    docIdSum,
    tokenizer: TOKENIZER_FINGERPRINT,
    partitions: state.partitions,
    counts: {
      terms: state.terms.length,
      termBytes: termBytes.length,
      lists: state.lists.term.length,
      postings: count(parts[7] ?? []),
      docs: state.docs.id.length,
      docTerms: count(parts[14] ?? []),
      removed: state.removed.id.length,
    },
  };
  return { header: Buffer.from(JSON.stringify(header), 'utf8'), parts };
}

/** Bytes to a file through one WRITE_CHUNK buffer, from byte PREFIX on, with their CRC-32. */
class ChunkedWriter {
  private readonly chunk = Buffer.alloc(WRITE_CHUNK);
  private filled = 0;
  crc = 0;
  position = PREFIX;

  constructor(private readonly handle: FileHandle) {}

  /** Copies the bytes in if they fit without a write (no promise: most parts, a postings list or a document's terms, are small). */
  copy(bytes: Uint8Array): boolean {
    if (this.filled + bytes.length >= WRITE_CHUNK) return false;
    this.chunk.set(bytes, this.filled);
    this.filled += bytes.length;
    return true;
  }

  /** Copies the bytes in, writing the chunk out each time it fills. */
  async put(bytes: Uint8Array): Promise<void> {
    let from = 0;
    while (from < bytes.length) {
      const n = Math.min(bytes.length - from, WRITE_CHUNK - this.filled);
      this.chunk.set(bytes.subarray(from, from + n), this.filled);
      this.filled += n;
      from += n;
      if (this.filled === WRITE_CHUNK) await this.flush();
    }
  }

  async padTo8(written: number): Promise<void> {
    if (written % 8 !== 0) await this.put(new Uint8Array(8 - (written % 8)));
  }

  async flush(): Promise<void> {
    if (this.filled === 0) return;
    this.crc = crc32(this.chunk.subarray(0, this.filled), this.crc);
    await this.handle.write(this.chunk, 0, this.filled, this.position);
    this.position += this.filled;
    this.filled = 0;
  }
}

/**
 * Writes a captured index to `file` (a temporary file, synced, then renamed over it: a reader, or the next open
 * after a crash, sees the old file or the new one whole). Copies at most WRITE_CHUNK bytes between awaits, so a
 * background save shares the event loop; `state` must not change meanwhile (see `Bm25State`).
 * Answers the bytes written.
 */
export async function writeBm25Snapshot(
  file: string,
  state: Bm25State<'parts'>,
  at: Pick<Bm25SnapshotMeta, 'epoch' | 'watermark'>,
): Promise<number> {
  // The event loop gets a turn every SLICE_MS of work here too, not only at each write.
  let began = performance.now();
  const breathe = async (): Promise<void> => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    began = performance.now();
  };
  const heading = headerOf(state, at);
  let headed = heading.next();
  while (!headed.done) {
    if (performance.now() - began >= SLICE_MS) await breathe();
    headed = heading.next();
  }
  const { header, parts } = headed.value;
  const sectionBytes = (section: Section): number => section.reduce((n, p) => n + p.count * p.array.BYTES_PER_ELEMENT, 0);
  const total = PREFIX + pad8(header.length) + parts.reduce((n, section) => n + pad8(sectionBytes(section)), 0);
  const tmp = `${file}.tmp-${process.pid}-${++tmpCounter}`;
  const handle = await open(tmp, 'w');
  try {
    const out = new ChunkedWriter(handle);
    await out.put(header);
    await out.padTo8(header.length);
    for (const section of parts) {
      let written = 0;
      for (const { array, count } of section) {
        const bytes = count * array.BYTES_PER_ELEMENT;
        const view = new Uint8Array(array.buffer, array.byteOffset, bytes);
        if (bytes > 0 && !out.copy(view)) await out.put(view);
        written += bytes;
        if (performance.now() - began >= SLICE_MS) await breathe();
      }
      await out.padTo8(written);
    }
    await out.flush();
    if (out.position !== total) throw new Error(`BM25 snapshot: wrote ${out.position} bytes of ${total}`);
    const prefix = Buffer.alloc(PREFIX);
    MAGIC.copy(prefix, 0);
    prefix.writeUInt32LE(BM25_SNAPSHOT_FORMAT, 8);
    prefix.writeUInt32LE(BYTE_ORDER, 12);
    prefix.writeUInt32LE(header.length, 16);
    prefix.writeUInt32LE(out.crc, 20);
    prefix.writeDoubleLE(total, 24);
    await handle.write(prefix, 0, PREFIX, 0);
    await handle.datasync();
    await handle.close();
    await rename(tmp, file);
    return total;
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw error;
  }
}
let tmpCounter = 0;

/** The vocabulary from its byte lengths and UTF-8 bytes. */
function* termsFrom(lengths: Uint32Array, bytes: Uint8Array): Generator<void, string[]> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const terms: string[] = [];
  let from = 0;
  for (const n of lengths) {
    if (from + n > bytes.length) throw new Bm25SnapshotError('term bytes');
    terms.push(decoder.decode(bytes.subarray(from, from + n)));
    from += n;
    if (terms.length % STEP_TERMS === 0) yield;
  }
  if (from !== bytes.length) throw new Bm25SnapshotError('term bytes');
  return terms;
}

/**
 * Reads a snapshot file's bytes back into a state and its meta. Throws Bm25SnapshotError, naming what is wrong,
 * when it is not one this version wrote whole: magic, format, byte order, length, checksum, tokenizer, sizes.
 * Postings sections are views of `bytes` (`Bm25Index.restore` copies them); the documents' term ids are copied
 * out, so `bytes` is not kept alive by the index.
 */
export function readBm25Snapshot(bytes: Buffer): { state: Bm25State<'whole'>; meta: Bm25SnapshotMeta } {
  return stepsToEnd(parseBm25Snapshot(bytes));
}

/**
 * `readBm25Snapshot` in steps: yields after each CRC_STEP bytes checked and each STEP_TERMS terms decoded, so an open
 * in the background hands the event loop back between them (ADR 0034, amendment "Lexical side opened in the background").
 */
export function* parseBm25Snapshot(bytes: Buffer): Generator<void, { state: Bm25State<'whole'>; meta: Bm25SnapshotMeta }> {
  const fail = (what: string): never => {
    throw new Bm25SnapshotError(what);
  };
  if (bytes.length < PREFIX) fail(`truncated (${bytes.length} bytes)`);
  if (!bytes.subarray(0, 8).equals(MAGIC)) fail('not a BM25 snapshot');
  const format = bytes.readUInt32LE(8);
  if (format !== BM25_SNAPSHOT_FORMAT) fail(`format ${format}, this version reads ${BM25_SNAPSHOT_FORMAT}`);
  if (bytes.readUInt32LE(12) !== BYTE_ORDER || new Uint8Array(Uint32Array.of(BYTE_ORDER).buffer)[0] !== 0x04)
    fail('written on a machine of another byte order');
  const length = bytes.readDoubleLE(24);
  if (length !== bytes.length) fail(`truncated or extended (${bytes.length} bytes, header says ${length})`);
  let crc = 0;
  for (let from = PREFIX; from < bytes.length; from += CRC_STEP) {
    crc = crc32(bytes.subarray(from, Math.min(bytes.length, from + CRC_STEP)), crc);
    yield;
  }
  if (crc !== bytes.readUInt32LE(20)) fail('checksum mismatch');
  // Typed arrays need their element alignment: a Buffer from a pool may start anywhere.
  const aligned = bytes.byteOffset % 8 === 0 ? bytes : Buffer.from(new Uint8Array(bytes).buffer);
  const headerLength = aligned.readUInt32LE(16);
  let header: Header;
  try {
    header = JSON.parse(aligned.toString('utf8', PREFIX, PREFIX + headerLength)) as Header;
  } catch {
    return fail('unreadable header');
  }
  if (header.tokenizer !== TOKENIZER_FINGERPRINT) fail('written with another tokenizer');
  const c = header.counts;
  let at = PREFIX + pad8(headerLength);
  const take = <T extends View>(make: new (buffer: ArrayBuffer, offset: number, length: number) => T, n: number, bytesEach: number): T => {
    if (!Number.isInteger(n) || n < 0 || at + n * bytesEach > aligned.length) fail('sections overrun the file');
    const view = new make(aligned.buffer as ArrayBuffer, aligned.byteOffset + at, n);
    at += pad8(n * bytesEach);
    return view;
  };
  yield;
  const terms = yield* termsFrom(take(Uint32Array, c.terms, 4), take(Uint8Array, c.termBytes, 1));
  const lists = {
    term: take(Int32Array, c.lists, 4),
    size: take(Uint32Array, c.lists, 4),
    live: take(Uint32Array, c.lists, 4),
    maxTf: take(Uint16Array, c.lists, 2),
    minLength: take(Uint16Array, c.lists, 2),
  };
  const postings = {
    docs: take(Int32Array, c.postings, 4),
    tfs: take(Uint16Array, c.postings, 2),
    lengths: take(Uint16Array, c.postings, 2),
  };
  const docs = {
    id: take(Int32Array, c.docs, 4),
    partition: take(Uint32Array, c.docs, 4),
    length: take(Uint32Array, c.docs, 4),
    termCount: take(Uint32Array, c.docs, 4),
    terms: take(Int32Array, c.docTerms, 4),
  };
  const removed = { id: take(Int32Array, c.removed, 4), partition: take(Uint32Array, c.removed, 4) };
  if (at !== aligned.length) fail('sections do not fill the file');
  yield;
  // Copied out in steps, so the index does not keep the file's buffer alive.
  const docTerms = new Int32Array(docs.terms.length);
  for (let from = 0; from < docTerms.length; from += CRC_STEP / 4) {
    docTerms.set(docs.terms.subarray(from, from + CRC_STEP / 4), from);
    yield;
  }
  docs.terms = docTerms;
  return {
    state: { terms, partitions: header.partitions, lists, postings, docs, removed },
    meta: { epoch: header.epoch, watermark: header.watermark, docs: header.docs, docIdSum: header.docIdSum },
  };
}
