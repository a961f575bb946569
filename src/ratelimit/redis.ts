import type { Redis } from 'ioredis';
import { checkCharge } from './memory.js';
import type { BucketState, BucketSpec, ChargeDecision, RateLimiter } from './types.js';

export interface RedisRateLimiterOptions {
  /** Prepended to every bucket key. Default `patron:rl:`. */
  keyPrefix?: string;
}

/*
 * KEYS: bucket keys. ARGV: capacity, refill-per-second and cost for each key.
 * Returns { allowed (0/1), retryAfterSeconds, tokens_1, secondsUntilFull_1, ... }.
 *
 * The whole decision runs inside Redis so it is atomic across processes, and it reads TIME on the
 * server so every process refills against the same clock. Time is kept in integer microseconds
 * (exact in a double). Fractional values cross the Lua boundary as '%.17g' strings because Redis
 * truncates Lua numbers to integers in replies and older servers format arguments with '%.14g'.
 * A missing key means "full", so each key expires a margin after it would have refilled; an
 * unknown bucket that stays full is never written.
 */
const EXPIRY_MARGIN_MS = 60_000;

const CHARGE_LUA = `
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local eps = 1e-9
local n = #KEYS
local caps, rates, costs, tokens, exists = {}, {}, {}, {}, {}
local retry = 0
for i = 1, n do
  local cap = tonumber(ARGV[3 * i - 2])
  local rate = tonumber(ARGV[3 * i - 1])
  local cost = tonumber(ARGV[3 * i])
  local stored = redis.call('HMGET', KEYS[i], 'tokens', 'ts')
  local t = cap
  exists[i] = stored[1] and stored[2]
  if exists[i] then
    local elapsed = now - tonumber(stored[2])
    if elapsed < 0 then elapsed = 0 end
    t = math.min(cap, tonumber(stored[1]) + elapsed * rate / 1000000)
  end
  caps[i], rates[i], costs[i], tokens[i] = cap, rate, cost, t
  local wait = 0
  if cost > cap then wait = cap / rate
  elseif t < cost then wait = (cost - t) / rate end
  if wait > 0 then retry = math.max(retry, math.ceil(wait - eps), 1) end
end
local allowed = retry == 0 and 1 or 0
local out = { allowed, retry }
for i = 1, n do
  local t = tokens[i]
  if allowed == 1 then t = t - costs[i] end
  local deficit = caps[i] - t
  local untilFull = 0
  if deficit > 0 or exists[i] then
    local toFull = 0
    if deficit > 0 then
      toFull = deficit / rates[i]
      untilFull = math.max(1, math.ceil(toFull - eps))
    end
    redis.call('HSET', KEYS[i], 'tokens', string.format('%.17g', t), 'ts', string.format('%.17g', now))
    redis.call('PEXPIRE', KEYS[i], math.ceil(toFull * 1000) + ${EXPIRY_MARGIN_MS})
  end
  out[#out + 1] = string.format('%.17g', t)
  out[#out + 1] = untilFull
end
return out
`;

const COMMAND = 'patronRateLimitCharge';

type ChargeCommand = (numKeys: number, ...args: (string | number)[]) => Promise<(number | string)[]>;

/**
 * Token buckets shared by every process talking to the same Redis. One EVALSHA per decision
 * (ioredis sends EVAL the first time on each connection and after NOSCRIPT).
 * In Redis Cluster all buckets of one charge must share a hash slot, e.g. via `{org}` hash tags.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly command: ChargeCommand;
  private readonly keyPrefix: string;

  constructor(redis: Redis, options: RedisRateLimiterOptions = {}) {
    this.keyPrefix = options.keyPrefix ?? 'patron:rl:';
    // Redefining on a shared connection is harmless: same name, same script.
    redis.defineCommand(COMMAND, { lua: CHARGE_LUA });
    const command = (redis as unknown as Record<string, ChargeCommand>)[COMMAND];
    if (command === undefined) throw new Error('ioredis did not register the rate-limit script');
    this.command = command.bind(redis);
  }

  async charge(buckets: readonly BucketSpec[], cost: number): Promise<ChargeDecision> {
    checkCharge(buckets, cost);
    const args: (string | number)[] = [];
    for (const b of buckets) args.push(this.keyPrefix + b.key);
    for (const b of buckets) args.push(b.capacity, b.refillPerSecond, b.cost ?? cost);
    const reply = await this.command(buckets.length, ...args);

    const states: BucketState[] = buckets.map((b, i) => ({
      key: b.key,
      capacity: b.capacity,
      tokens: Number(reply[2 + 2 * i]),
      secondsUntilFull: Number(reply[3 + 2 * i]),
    }));
    return { allowed: Number(reply[0]) === 1, retryAfterSeconds: Number(reply[1]), buckets: states };
  }

  /** The connection belongs to the caller, so there is nothing to release. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
