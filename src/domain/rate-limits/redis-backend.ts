import { Redis } from 'ioredis';
import { z } from 'zod';
import { MINUTE_MS, type LimitCheck, type LimitDecision, type RateLimitBackend, type Verdict } from './rate-limit-types.js';

/**
 * The limiter with its counts in Redis, so every process pointed at one Redis
 * and one key prefix shares one budget (issue 9). The whole decision runs in
 * one Lua script, atomically: two processes cannot both take the last slot.
 * The script repeats limit-rules.ts: windows are sorted sets of admitted
 * times; growth counts are a hash of minute -> admitted requests.
 *
 * KEYS: the window keys, then the growth key when there is one.
 * ARGV: now, windowMs, member, number of windows, each limit, then (growth)
 * threshold, percent, window minutes, index of the rate window (0-based).
 * Returns: verdict (0 allowed, 1 rate_limit_exceeded, 2 slow_down), wait ms,
 * then for each window its count and oldest time (-1 when empty).
 */
const SCRIPT = `
local now = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2])
local member = ARGV[3]
local n = tonumber(ARGV[4])
local start = now - windowMs
local counts = {}
local oldest = {}
local wait = 0
for i = 1, n do
  local limit = tonumber(ARGV[4 + i])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', start)
  local count = redis.call('ZCARD', KEYS[i])
  counts[i] = count
  local first = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
  oldest[i] = first[2] and tonumber(first[2]) or -1
  if count >= limit then
    local blocking = redis.call('ZRANGE', KEYS[i], count - limit, count - limit, 'WITHSCORES')
    wait = math.max(wait, math.max(1, tonumber(blocking[2]) + windowMs - now))
  end
end
local function result(verdict, w)
  local out = {verdict, w}
  for i = 1, n do
    out[#out + 1] = counts[i]
    out[#out + 1] = oldest[i]
  end
  return out
end
if wait > 0 then return result(1, wait) end
local g = KEYS[n + 1]
local minute = math.floor(now / ${MINUTE_MS})
if g then
  local threshold = tonumber(ARGV[5 + n])
  local percent = tonumber(ARGV[6 + n])
  local span = tonumber(ARGV[7 + n])
  local fields = {}
  for m = minute - 2 * span + 1, minute - span do fields[#fields + 1] = m end
  local busiest = 0
  for _, v in ipairs(redis.call('HMGET', g, unpack(fields))) do
    if v then busiest = math.max(busiest, tonumber(v)) end
  end
  local cap = math.max(threshold, math.floor(busiest * (100 + percent) / 100))
  local rr = tonumber(ARGV[8 + n]) + 1
  if counts[rr] >= cap then
    local blocking = redis.call('ZRANGE', KEYS[rr], counts[rr] - cap, counts[rr] - cap, 'WITHSCORES')
    return result(2, math.max(1, tonumber(blocking[2]) + windowMs - now))
  end
  redis.call('HINCRBY', g, minute, 1)
  if redis.call('HLEN', g) > 2 * span + 2 then
    for _, field in ipairs(redis.call('HKEYS', g)) do
      if tonumber(field) <= minute - 2 * span then redis.call('HDEL', g, field) end
    end
  end
  redis.call('PEXPIRE', g, (2 * span + 1) * ${MINUTE_MS})
end
for i = 1, n do
  redis.call('ZADD', KEYS[i], now, member)
  redis.call('PEXPIRE', KEYS[i], windowMs + 1000)
  counts[i] = counts[i] + 1
  if oldest[i] < 0 then oldest[i] = now end
end
return result(0, 0)
`;

const VERDICTS: readonly Verdict[] = ['allowed', 'rate_limit_exceeded', 'slow_down'];
const Reply = z.array(z.number().int()).min(2);

/** The client with the script defined on it (ioredis adds the method at run time; its reply is checked with zod). */
type ScriptedRedis = Redis & { adsvcRateLimit(numKeys: number, ...args: (string | number)[]): Promise<unknown> };

export interface RedisBackendOptions {
  url: string;
  /** How long a check may wait for Redis before the caller falls back. */
  commandTimeoutMs?: number;
}

export class RedisBackend implements RateLimitBackend {
  private readonly client: ScriptedRedis;
  /** Settles once the first connection is up (or has had its chance), so early checks do not fall back needlessly. */
  private readonly firstConnect: Promise<void>;

  constructor(opts: RedisBackendOptions) {
    const client = new Redis(opts.url, {
      // Fail fast rather than queue: a check that cannot reach Redis falls back at once.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: opts.commandTimeoutMs ?? 250,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
      lazyConnect: false,
    });
    // Connection errors surface as failed checks; the event only needs a listener.
    client.on('error', () => undefined);
    client.defineCommand('adsvcRateLimit', { lua: SCRIPT });
    this.client = client as ScriptedRedis;
    const waitMs = opts.commandTimeoutMs ?? 250;
    this.firstConnect = new Promise((resolve) => {
      const timer = setTimeout(resolve, 2 * waitMs);
      timer.unref();
      client.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  async check(check: LimitCheck): Promise<LimitDecision> {
    await this.firstConnect;
    const keys = check.rules.map((r) => r.key);
    const args: (string | number)[] = [check.nowMs, check.windowMs, `${check.nowMs}:${check.member}`, check.rules.length, ...check.rules.map((r) => r.limit)];
    if (check.growth !== null) {
      keys.push(check.growth.key);
      args.push(check.growth.threshold, check.growth.growthPercent, check.growth.windowMinutes, check.growth.rateRule);
    }
    const raw = Reply.parse(await this.client.adsvcRateLimit(keys.length, ...keys, ...args));
    const verdict = VERDICTS[raw[0] as number];
    if (verdict === undefined || raw.length !== 2 + 2 * check.rules.length) throw new Error(`unexpected rate-limit script reply: ${JSON.stringify(raw)}`);
    return {
      verdict,
      retryAfterMs: raw[1] as number,
      windows: check.rules.map((r, i) => {
        const oldest = raw[3 + 2 * i] as number;
        return { limit: r.limit, count: raw[2 + 2 * i] as number, oldestMs: oldest < 0 ? null : oldest };
      }),
    };
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}

