// Issue 6, figure 1: built-in review summary generation for one product with 1,000 reviews: ≤ 1 s and ≤ 200 MB of
// extra memory.
//
//   node --import tsx bench/review-summary-generate.ts
//
// In process, no server. The reviews come from bench/datasets/review-summary-data.ts (the hand-written fixtures, recombined).
// 1. The generator alone (what the job spends outside the database): modules loaded and one small warm-up run first
//    (loading the lexicons is a start-up cost, reported separately), then BENCH_RUNS runs on BENCH_REVIEWS reviews;
//    time per run (median, max) and extra memory of the first full-size run: the process's peak resident set after
//    it minus its resident set just before (after a full GC), an upper bound of what the run added (the peak may
//    date from start-up); and the V8 heap used right after it minus before (garbage not yet collected included).
// 2. The whole job on the embedded database (BENCH_DATABASE_URL=postgres://… for PostgreSQL): the reviews imported
//    for one product, then one `reviewSummary.generate` run (read the published reviews, generate, validate, write).
// Tunables (env): BENCH_REVIEWS (1000), BENCH_RUNS (5), BENCH_DATABASE_URL.
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';

const REVIEWS = Number(process.env.BENCH_REVIEWS ?? 1000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const TARGET_MS = 1_000;
const TARGET_MB = 200;
const log = (line: string) => process.stderr.write(line + '\n');
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

const loadStarted = performance.now();
const { summarizeReviews } = await import('../src/resources/review-summaries/generators/extractive/index.js');
const { benchReviews } = await import('./datasets/review-summary-data.js');
summarizeReviews(benchReviews(20));
const loadMs = performance.now() - loadStarted;
log(`modules, lexicons and a 20-review warm-up: ${loadMs.toFixed(0)} ms`);

const reviews = benchReviews(REVIEWS);
const characters = reviews.reduce((sum, review) => sum + review.title.length + review.body.length, 0);
log(`${REVIEWS} reviews, ${characters.toLocaleString('en-US')} characters`);

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
gc();
const rssBefore = process.memoryUsage().rss;
const heapBefore = process.memoryUsage().heapUsed;
const times: number[] = [];
let output: unknown;
for (let run = 0; run < RUNS; run++) {
  const started = performance.now();
  output = summarizeReviews(reviews);
  times.push(performance.now() - started);
  if (run === 0) {
    const heapAfter = process.memoryUsage().heapUsed;
    const maxRssAfter = process.resourceUsage().maxRSS * 1024;
    (globalThis as { firstRun?: unknown }).firstRun = {
      extraPeakRssMb: mb(Math.max(0, maxRssAfter - rssBefore)),
      heapGrowthMb: mb(heapAfter - heapBefore),
    };
  }
  log(`  run ${run + 1}: ${times.at(-1)!.toFixed(0)} ms`);
}
const sorted = [...times].sort((a, b) => a - b);
const memory = (globalThis as { firstRun?: { extraPeakRssMb: number; heapGrowthMb: number } }).firstRun!;
const generator = {
  reviews: REVIEWS,
  characters,
  startupMs: Math.round(loadMs),
  medianMs: Math.round(sorted[Math.floor(sorted.length / 2)]!),
  maxMs: Math.round(sorted.at(-1)!),
  ...memory,
  peakRssMb: mb(process.resourceUsage().maxRSS * 1024),
  meetsTarget: sorted.at(-1)! <= TARGET_MS && Math.max(memory.extraPeakRssMb, memory.heapGrowthMb) <= TARGET_MB,
  output,
};
log(
  `generator: median ${generator.medianMs} ms, max ${generator.maxMs} ms, extra peak RSS ${memory.extraPeakRssMb} MB, heap growth ${memory.heapGrowthMb} MB`,
);

async function wholeJob() {
  const { openDatabase, migrateToLatest } = await import('../src/db/engine.js');
  const { createOrganization } = await import('../src/resources/organization/service.js');
  const { createJobRunner } = await import('../src/jobs/runner/runner.js');
  const { reviewSummaryJobs } = await import('../src/resources/review-summaries/jobs.js');
  const { createExtractiveGenerator } =
    await import('../src/resources/review-summaries/generators/extractive/index.js');
  const { publishedReviewsChanged } = await import('../src/resources/review-summaries/triggers.js');
  const database = await openDatabase({ databaseUrl: process.env.BENCH_DATABASE_URL, dataDir: 'memory://' });
  try {
    await migrateToLatest(database.db);
    const organization = await createOrganization(database.db, { name: `Bench review summaries ${uuidv7()}` });
    const productId = uuidv7();
    await database.db
      .insertInto('products')
      .values({ organization_id: organization.id, id: productId, slug: `bench-${productId}`, title: 'Bench product' })
      .execute();
    const insertStarted = performance.now();
    await database.db.transaction().execute(async (trx) => {
      for (let start = 0; start < reviews.length; start += 500) {
        await trx
          .insertInto('reviews')
          .values(
            reviews.slice(start, start + 500).map((review) => ({
              organization_id: organization.id,
              id: uuidv7(),
              product_id: productId,
              rating: review.rating,
              title: review.title,
              body: review.body,
              published: true,
              language: review.language,
              created_at: review.createdAt,
              answers: '[]',
              metadata: '{}',
            })),
          )
          .execute();
      }
      // What the reviews resource does in the import's transaction: queues the first generation (D20).
      await publishedReviewsChanged(trx, organization.id, [productId]);
    });
    const triggerMs = performance.now() - insertStarted;
    const runner = createJobRunner({
      db: database.db,
      jobs: reviewSummaryJobs({ generator: createExtractiveGenerator() }),
      logger: { info() {}, warn() {}, error() {} },
    });
    const started = performance.now();
    const ran = await runner.tick();
    const jobMs = performance.now() - started;
    const { rows } = await sql<{
      review_count: number;
    }>`select (current->>'reviewCount')::int as review_count from review_summaries where product_id = ${productId}::uuid`.execute(
      database.db,
    );
    if (ran < 1 || rows[0]?.review_count !== reviews.length)
      throw new Error(`the job did not write the summary (ran ${ran}, ${JSON.stringify(rows)})`);
    return {
      engine: database.engine,
      insertAndTriggerMs: Math.round(triggerMs),
      jobMs: Math.round(jobMs),
      meetsTarget: jobMs <= TARGET_MS,
    };
  } finally {
    await database.close();
  }
}

const job = await wholeJob();
log(`whole job (${job.engine}): ${job.jobMs} ms (import of the reviews and the trigger: ${job.insertAndTriggerMs} ms)`);
console.log(
  `RESULT ${JSON.stringify({ targetMs: TARGET_MS, targetMb: TARGET_MB, generator: { ...generator, output: undefined }, job })}`,
);
