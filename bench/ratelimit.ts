// Rate-limiter decision cost. Run: node --import tsx bench/ratelimit.ts  (set REDIS_URL for Redis)
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { MemoryRateLimiter, RedisRateLimiter, type BucketSpec, type RateLimiter } from '../src/ratelimit/index.js';

const ORGS = 1_000;
const MEMORY_DECISIONS = 1_000_000;
const REDIS_SEQUENTIAL = 10_000;
const REDIS_CONCURRENT = 50_000;
const IN_FLIGHT = 50;

// Pre-built request arrays, so the loop measures the limiter and not the caller's allocations.
const single: BucketSpec[][] = [];
const double: BucketSpec[][] = [];
for (let i = 0; i < ORGS; i++) {
  const org: BucketSpec = { key: `org:${i}`, capacity: 600, refillPerSecond: 10 };
  single.push([org]);
  double.push([org, { key: `ep:${i}:loyalty-events`, capacity: 100, refillPerSecond: 5 }]);
}

const rows: [string, string][] = [];
const result: Record<string, number> = {};

function memoryNsPerDecision(
  requests: BucketSpec[][],
  awaited: boolean,
): Promise<{ ns: number; allowedRatio: number }> {
  const limiter = new MemoryRateLimiter();
  return (async () => {
    let allowed = 0;
    for (let i = 0; i < 200_000; i++) void limiter.charge(requests[i % ORGS]!, 1); // warm-up / JIT
    const start = process.hrtime.bigint();
    if (awaited) {
      for (let i = 0; i < MEMORY_DECISIONS; i++) if ((await limiter.charge(requests[i % ORGS]!, 1)).allowed) allowed++;
    } else {
      // The promise is already settled; not awaiting isolates the decision from the microtask hop.
      for (let i = 0; i < MEMORY_DECISIONS; i++) void limiter.charge(requests[i % ORGS]!, 1);
    }
    const ns = Number(process.hrtime.bigint() - start) / MEMORY_DECISIONS;
    await limiter.close();
    return { ns, allowedRatio: allowed / MEMORY_DECISIONS };
  })();
}

async function commandCalls(redis: Redis): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const m of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    calls.set(m[1]!, Number(m[2]));
  }
  return calls;
}

async function benchRedis(url: string): Promise<void> {
  const redis = new Redis(url);
  const prefix = `patron:rl:bench:${randomUUID()}:`;
  const limiter: RateLimiter = new RedisRateLimiter(redis, { keyPrefix: prefix });
  try {
    for (let i = 0; i < 2_000; i++) await limiter.charge(single[i % ORGS]!, 1); // loads the script, warms up

    const before = await commandCalls(redis);
    let start = process.hrtime.bigint();
    for (let i = 0; i < REDIS_SEQUENTIAL; i++) await limiter.charge(single[i % ORGS]!, 1);
    const seqUs = Number(process.hrtime.bigint() - start) / 1_000 / REDIS_SEQUENTIAL;
    const after = await commandCalls(redis);

    start = process.hrtime.bigint();
    for (let i = 0; i < REDIS_SEQUENTIAL; i++) await limiter.charge(double[i % ORGS]!, 1);
    const seq2Us = Number(process.hrtime.bigint() - start) / 1_000 / REDIS_SEQUENTIAL;

    let next = 0;
    start = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < REDIS_CONCURRENT) await limiter.charge(single[next++ % ORGS]!, 1);
      }),
    );
    const concurrentSeconds = Number(process.hrtime.bigint() - start) / 1e9;

    // commandstats is server-wide and also counts the commands the script runs internally, so
    // those are accounted separately; anything else would be an extra round trip.
    const delta = (cmd: string) => (after.get(cmd) ?? 0) - (before.get(cmd) ?? 0);
    const inScript = new Set(['time', 'hmget', 'hset', 'pexpire', 'del']);
    let scripts = 0;
    let other = 0;
    for (const cmd of new Set([...before.keys(), ...after.keys()])) {
      if (cmd === 'eval' || cmd === 'evalsha') scripts += delta(cmd);
      else if (!inScript.has(cmd) && cmd !== 'info') other += delta(cmd);
    }

    result.redisSequentialUs = seqUs;
    result.redisSequentialOpsPerSec = 1e6 / seqUs;
    result.redisSequential2BucketUs = seq2Us;
    result.redisConcurrentOpsPerSec = REDIS_CONCURRENT / concurrentSeconds;
    result.redisConcurrentInFlight = IN_FLIGHT;
    result.redisRoundTripsPerDecision = (scripts + other) / REDIS_SEQUENTIAL;
    result.redisInScriptCommandsPerDecision =
      [...inScript].reduce((sum, cmd) => sum + delta(cmd), 0) / REDIS_SEQUENTIAL;
    rows.push(
      ['redis sequential, 1 bucket (µs/decision)', seqUs.toFixed(1)],
      ['redis sequential, 1 bucket (ops/s)', result.redisSequentialOpsPerSec.toFixed(0)],
      ['redis sequential, 2 buckets (µs/decision)', seq2Us.toFixed(1)],
      [`redis ${IN_FLIGHT} in flight, 1 bucket (ops/s)`, result.redisConcurrentOpsPerSec.toFixed(0)],
      ['redis round trips per decision (eval/evalsha + other)', result.redisRoundTripsPerDecision.toFixed(3)],
      ['redis in-script commands per decision', result.redisInScriptCommandsPerDecision.toFixed(3)],
    );
  } finally {
    const keys: string[] = [];
    for await (const batch of redis.scanStream({ match: `${prefix}*`, count: 1000 })) keys.push(...(batch as string[]));
    for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
    await limiter.close();
    await redis.quit();
  }
}

const one = await memoryNsPerDecision(single, false);
const two = await memoryNsPerDecision(double, false);
const oneAwaited = await memoryNsPerDecision(single, true);
result.memoryNsPerDecision = one.ns;
result.memory2BucketNsPerDecision = two.ns;
result.memoryAwaitedNsPerDecision = oneAwaited.ns;
result.memoryAllowedRatio = oneAwaited.allowedRatio;
rows.push(
  ['memory, 1 bucket (ns/decision)', one.ns.toFixed(0)],
  ['memory, 2 buckets (ns/decision)', two.ns.toFixed(0)],
  ['memory, 1 bucket, awaited (ns/decision)', oneAwaited.ns.toFixed(0)],
);

if (process.env.REDIS_URL) await benchRedis(process.env.REDIS_URL);
else rows.push(['redis', 'skipped (REDIS_URL not set)']);

const width = Math.max(...rows.map(([name]) => name.length));
console.log(`rate limiter, ${ORGS} org keys, node ${process.version}`);
for (const [name, value] of rows) console.log(`${name.padEnd(width)}  ${value.padStart(10)}`);
console.log(`RESULT ${JSON.stringify(result)}`);
