import type { RedisOptions } from 'ioredis';
import { LazyRedis } from './lazy-redis.js';
import type { BudgetStore, ReserveRequest, ReserveResult, ScopeRef, Settlement } from '../budget-store.port.js';

/**
 * KEYS: pairs (counter hash, reservations hash). ARGV: now, ttl, reservation id, then per scope: period id,
 * limit, estimate, the id of the turn's own hold ('' for none). Checks every scope first and reserves on all or
 * none, atomically: two gateway or matcher processes can never both take the last room of a budget. Expired
 * reservations (a process died mid-call) are dropped as they are seen. The rules are `admit` of
 * admission.ts (the in-process adapter calls it).
 */
const RESERVE = `
local now = tonumber(ARGV[1]); local ttl = tonumber(ARGV[2]); local id = ARGV[3]
local n = #KEYS / 2
for i = 1, n do
  local c = KEYS[2 * i - 1]; local r = KEYS[2 * i]
  local base = 3 + 4 * (i - 1)
  local period = ARGV[base + 1]; local limit = tonumber(ARGV[base + 2]); local est = tonumber(ARGV[base + 3]); local held = ARGV[base + 4]
  local used = 0
  if redis.call('HGET', c, 'p') == period then used = tonumber(redis.call('HGET', c, 'u') or '0') end
  local others = 0
  local entries = redis.call('HGETALL', r)
  for j = 1, #entries, 2 do
    local amount, expires = string.match(entries[j + 1], '^(%d+):(%d+)$')
    if tonumber(expires) <= now then redis.call('HDEL', r, entries[j]) elseif entries[j] ~= held then others = others + tonumber(amount) end
  end
  if used >= limit or used + est > limit then return {'exhausted', i, used, limit} end
  if others > 0 and used + others + est > limit then return {'wait', i, used, limit} end
end
for i = 1, n do
  local c = KEYS[2 * i - 1]; local r = KEYS[2 * i]
  local base = 3 + 4 * (i - 1)
  local period = ARGV[base + 1]; local est = ARGV[base + 3]
  if redis.call('HGET', c, 'p') ~= period then redis.call('HSET', c, 'p', period, 'u', 0) end
  redis.call('HSET', r, id, est .. ':' .. (now + ttl))
  redis.call('PEXPIRE', r, ttl * 2)
end
return {'reserved'}
`;

/**
 * KEYS: the settled marker, then pairs (counter hash, reservations hash). ARGV: reservation id, marker TTL, counter
 * TTL, then per scope: period id, amount. The marker makes settle exactly-once per reservation.
 */
const SETTLE = `
local id = ARGV[1]
local n = (#KEYS - 1) / 2
for i = 1, n do redis.call('HDEL', KEYS[1 + 2 * i], id) end
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[2]) then return {} end
local out = {}
for i = 1, n do
  local c = KEYS[2 * i]
  local period = ARGV[3 + 2 * (i - 1) + 1]; local amount = tonumber(ARGV[3 + 2 * (i - 1) + 2])
  if redis.call('HGET', c, 'p') ~= period then redis.call('HSET', c, 'p', period, 'u', 0) end
  local before = tonumber(redis.call('HGET', c, 'u') or '0')
  local after = redis.call('HINCRBY', c, 'u', amount)
  redis.call('PEXPIRE', c, ARGV[3])
  table.insert(out, before); table.insert(out, after)
end
return out
`;

/** KEYS: counter hashes. ARGV: the current period id. Zeroes those in another period. */
const RESET = `
local reset = 0
for i = 1, #KEYS do
  local p = redis.call('HGET', KEYS[i], 'p')
  if p and p ~= ARGV[1] then redis.call('HSET', KEYS[i], 'p', ARGV[1], 'u', 0); reset = reset + 1 end
end
return reset
`;

/** KEYS: counter hashes. ARGV: counter TTL, then per counter: period id, used. Raises each to at least `used`. */
const RAISE = `
local raised = 0
for i = 1, #KEYS do
  local period = ARGV[2 * i]; local used = tonumber(ARGV[2 * i + 1])
  local current = nil
  if redis.call('HGET', KEYS[i], 'p') == period then current = tonumber(redis.call('HGET', KEYS[i], 'u') or '0') end
  if current == nil or current < used then
    redis.call('HSET', KEYS[i], 'p', period, 'u', used)
    redis.call('PEXPIRE', KEYS[i], ARGV[1])
    raised = raised + 1
  end
end
return raised
`;

/** A counter untouched this long is dropped (a month's counter lives past its month; an idle session's budget too). */
const COUNTER_TTL_MS = 40 * 86_400_000;
/** How long a settled reservation id is remembered (a retried settle comes within seconds). */
const SETTLED_TTL_MS = 86_400_000;

export interface RedisBudgetStoreOptions {
  connection: RedisOptions;
  /** Key prefix (TENET_REDIS_PREFIX), then `:budget:`. */
  prefix?: string;
}

/**
 * Budget counters in Redis, shared by every gateway and matcher replica (distributed mode). Reserve and settle are
 * Lua scripts, so each is atomic across processes. Keys: `<prefix>:budget:c:<key>` (hash: period id `p`, used `u`),
 * `<prefix>:budget:r:<key>` (reservations: id → `amount:expiresAt`), `<prefix>:budget:s:<id>` (settled markers),
 * `<prefix>:budget:f:<flag>` (once-per-period flags). One Redis (not Cluster): a script's keys are not co-located.
 */
export class RedisBudgetStore implements BudgetStore {
  private readonly redis: LazyRedis;
  private readonly prefix: string;

  constructor(options: RedisBudgetStoreOptions) {
    // Commands wait for a reconnect rather than fail at once; a call that cannot be admitted is not made.
    this.redis = new LazyRedis({ ...options.connection, lazyConnect: false, maxRetriesPerRequest: 3 });
    this.prefix = `${options.prefix ?? 'tenet'}:budget`;
  }

  private c = (key: string): string => `${this.prefix}:c:${key}`;
  private r = (key: string): string => `${this.prefix}:r:${key}`;

  async reserve(request: ReserveRequest): Promise<ReserveResult> {
    if (request.scopes.length === 0) return { outcome: 'reserved' };
    const keys = request.scopes.flatMap((s) => [this.c(s.key), this.r(s.key)]);
    const args = [
      String(request.now),
      String(request.ttlMs),
      request.reservationId,
      ...request.scopes.flatMap((s) => [s.periodId, String(s.limit), String(Math.max(0, Math.ceil(s.estimate))), s.heldBy ?? '']),
    ];
    const reply = (await this.redis.client.eval(RESERVE, keys.length, ...keys, ...args)) as [string, number?, number?, number?];
    const scope = request.scopes[(reply[1] ?? 1) - 1];
    if (reply[0] === 'exhausted') return { outcome: 'exhausted', key: scope?.key ?? '', used: Number(reply[2]), limit: Number(reply[3]) };
    if (reply[0] === 'wait') return { outcome: 'wait', key: scope?.key ?? '' };
    return { outcome: 'reserved' };
  }

  async settle(reservationId: string, charges: (ScopeRef & { amount: number })[]): Promise<Settlement[]> {
    if (charges.length === 0) return [];
    const keys = [`${this.prefix}:s:${reservationId}`, ...charges.flatMap((c) => [this.c(c.key), this.r(c.key)])];
    const args = [
      reservationId,
      String(SETTLED_TTL_MS),
      String(COUNTER_TTL_MS),
      ...charges.flatMap((c) => [c.periodId, String(Math.max(0, Math.round(c.amount)))]),
    ];
    const reply = (await this.redis.client.eval(SETTLE, keys.length, ...keys, ...args)) as number[];
    if (reply.length === 0) return [];
    return charges.map((c, i) => ({ key: c.key, before: Number(reply[2 * i]), after: Number(reply[2 * i + 1]) }));
  }

  async release(reservationId: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    const pipeline = this.redis.client.pipeline();
    for (const key of keys) pipeline.hdel(this.r(key), reservationId);
    await pipeline.exec();
  }

  async read(scopes: readonly ScopeRef[], now: number): Promise<Map<string, { used: number; reserved: number }>> {
    const result = new Map<string, { used: number; reserved: number }>();
    for (const scope of scopes) {
      const [[, counter], [, reservations]] = (await this.redis.client
        .pipeline()
        .hgetall(this.c(scope.key))
        .hgetall(this.r(scope.key))
        .exec()) as [[unknown, Record<string, string>], [unknown, Record<string, string>]];
      const used = counter['p'] === scope.periodId ? Number(counter['u'] ?? 0) : 0;
      let reserved = 0;
      for (const value of Object.values(reservations)) {
        const [amount, expires] = value.split(':').map(Number);
        if ((expires ?? 0) > now) reserved += amount ?? 0;
      }
      result.set(scope.key, { used, reserved });
    }
    return result;
  }

  async raise(counters: readonly (ScopeRef & { used: number })[]): Promise<number> {
    let raised = 0;
    // A few hundred counters per script: one atomic step each, without holding Redis for a whole rebuild.
    for (let from = 0; from < counters.length; from += 200) {
      const batch = counters.slice(from, from + 200);
      const args = [String(COUNTER_TTL_MS), ...batch.flatMap((c) => [c.periodId, String(Math.max(0, Math.round(c.used)))])];
      raised += Number(await this.redis.client.eval(RAISE, batch.length, ...batch.map((c) => this.c(c.key)), ...args));
    }
    return raised;
  }

  async resetPeriod(period: 'day' | 'month', currentPeriodId: string): Promise<number> {
    let reset = 0;
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.client.scan(cursor, 'MATCH', `${this.prefix}:c:*:${period}:*`, 'COUNT', 500);
      if (keys.length > 0) reset += Number(await this.redis.client.eval(RESET, keys.length, ...keys, currentPeriodId));
      cursor = next;
    } while (cursor !== '0');
    return reset;
  }

  async markOnce(flag: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.client.set(`${this.prefix}:f:${flag}`, '1', 'PX', ttlMs, 'NX')) === 'OK';
  }

  async ping(): Promise<void> {
    await this.redis.client.ping();
  }

  async close(): Promise<void> {
    await this.redis.close();
  }
}
