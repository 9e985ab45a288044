// The MongoDB driver the event store uses (mongoose's).
import { mongo } from 'mongoose';
import { EventLogUnavailableError, isStorageFull } from './errors.js';

const OUT_OF_DISK_SPACE = {
  code: 14031,
  codeName: 'OutOfDiskSpace',
  errmsg: 'Plan executor error during insert :: caused by :: Out of disk space',
};

/**
 * A full disk on MongoDB: its out-of-space errors are the same "disk is full" (507) as SQLite's SQLITE_FULL —
 * built with the real driver's error classes (no Mongo server runs here; none is faked).
 */
describe("isStorageFull: which errors mean the log's disk is full", () => {
  it('SQLite and the OS: SQLITE_FULL, ENOSPC', () => {
    expect(isStorageFull(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }))).toBe(true);
    expect(isStorageFull(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }))).toBe(true);
  });

  it("a MongoServerError with code 14031 (OutOfDiskSpace), also as the cause of the store's own error", () => {
    const server = new mongo.MongoServerError(OUT_OF_DISK_SPACE);
    expect(server.code).toBe(14031);
    expect(isStorageFull(server)).toBe(true);
    expect(isStorageFull(new mongo.MongoServerError({ codeName: 'OutOfDiskSpace', errmsg: 'out of disk space' }))).toBe(true);
    expect(isStorageFull(new EventLogUnavailableError('append failed', { cause: server }))).toBe(true);
  });

  it('an insertMany that failed with a write error of code 14031 (MongoBulkWriteError, its own code unset)', () => {
    const bulk = new mongo.MongoBulkWriteError(
      { message: 'write failed', writeErrors: [{ index: 0, ...OUT_OF_DISK_SPACE }] } as never,
      {} as never,
    );
    expect(bulk.code).toBeUndefined();
    expect(isStorageFull(bulk)).toBe(true);
  });

  it('a write concern error of code 14031', () => {
    const concern = new mongo.MongoWriteConcernError({ ok: 1, writeConcernError: { code: 14031, errmsg: 'Out of disk space' } } as never);
    expect(isStorageFull(concern)).toBe(true);
  });

  it('other MongoDB errors are not: duplicate key, a bulk write whose write errors are others, not a replica set', () => {
    expect(isStorageFull(new mongo.MongoServerError({ code: 11000, codeName: 'DuplicateKey', errmsg: 'E11000 duplicate key error' }))).toBe(
      false,
    );
    expect(
      isStorageFull(
        new mongo.MongoBulkWriteError(
          { message: 'write failed', writeErrors: [{ index: 0, code: 11000, errmsg: 'E11000' }] } as never,
          {} as never,
        ),
      ),
    ).toBe(false);
    expect(
      isStorageFull(
        new mongo.MongoServerError({
          code: 20,
          codeName: 'IllegalOperation',
          errmsg: 'Transaction numbers are only allowed on a replica set member or mongos',
        }),
      ),
    ).toBe(false);
    expect(isStorageFull(new Error('boom'))).toBe(false);
  });
});
