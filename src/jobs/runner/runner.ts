import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Registry } from 'prom-client';
import type { DB } from '../../db/schema.js';
import { createJobMetrics } from './metrics.js';
import { claimJob, enqueue, extendLease, finishJob, scheduleDaily, type JobRow } from './queue.js';
import { ContinueLater, type JobDefinition } from '../../core/job-definition.js';
import { onJobsQueued } from './wake.js';
import type { Logger } from '../../util/logger.js';

export interface JobRunnerOptions {
  db: Kysely<DB>;
  jobs: readonly JobDefinition[];
  logger: Logger;
  registry?: Registry | undefined;
  /** The clock (tests move it); default the process clock. */
  now?: () => Date;
  /** How often to schedule and look for due jobs. */
  pollMs?: number;
  /**
   * After a wake-up (wake(), or jobsQueued() in this process once started), how often to look for due jobs and for
   * how long: the job may have been queued in a transaction that commits a moment later.
   */
  wakePollMs?: number;
  wakeWindowMs?: number;
  /** How long a claim lasts without a heartbeat; a dead runner's job is taken over after it. */
  leaseMs?: number;
  /** Attempts before a job is left failed (a retry waits retryDelayMs). */
  maxAttempts?: number;
  /** How long one run of a long job (an import or export) goes on before it lets other due jobs run. */
  turnMs?: number;
  retryDelayMs?: number;
}

export interface JobRunner {
  readonly owner: string;
  /** Schedules the daily jobs that are due, then runs due jobs one after another until none is left. */
  tick(): Promise<number>;
  /** Queues (or finds) the run `runKey` of a job for one organization and runs it now, in this process. */
  runNow(organizationId: string, name: string, runKey: string): Promise<JobRow>;
  /** Ticks every pollMs until stopped; a wake-up (below, or jobsQueued() in this process) ticks at once. */
  start(): void;
  /** Looks for due jobs now and every wakePollMs for wakeWindowMs (a started runner; no-op otherwise). */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * A small job runner on the `jobs` table (migration 0009): daily jobs are queued per organization on its own
 * clock, one row per (organization, job, run key), and claimed with SKIP LOCKED under a lease that a heartbeat
 * extends. However many processes run it, each run happens once; a run whose process died is taken over when its
 * lease lapses. Works on PGlite (one process) and PostgreSQL (many).
 */
export function createJobRunner(options: JobRunnerOptions): JobRunner {
  const { db, logger } = options;
  const owner = `${hostname()}:${process.pid}:${randomUUID()}`;
  const now = options.now ?? (() => new Date());
  const leaseMs = options.leaseMs ?? 60_000;
  const maxAttempts = options.maxAttempts ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 5 * 60_000;
  const turnMs = options.turnMs ?? 10_000;
  const byName = new Map(options.jobs.map((job) => [job.name, job]));
  const names = [...byName.keys()];
  const metrics = createJobMetrics(options.registry);
  let stopped = false;

  async function run(job: JobRow): Promise<JobRow> {
    const definition = byName.get(job.name)!;
    const started = now();
    const startedAt = performance.now();
    const log = {
      job: job.name,
      organizationId: job.organization_id,
      runKey: job.run_key,
      attempt: job.attempts,
      owner,
    };
    logger.info(log, 'job started');
    const heartbeat = setInterval(
      () => {
        extendLease(db, job, owner, new Date(now().getTime() + leaseMs)).catch((error: unknown) =>
          logger.warn({ ...log, err: error }, 'job lease not extended'),
        );
      },
      Math.max(1_000, leaseMs / 3),
    );
    heartbeat.unref();
    const timer = metrics.duration.startTimer({ job: job.name });
    try {
      const outcome = await definition.run({
        db,
        organizationId: job.organization_id,
        runKey: job.run_key,
        now: started,
        logger,
        attempt: job.attempts,
        finalAttempt: job.attempts >= maxAttempts,
        turnOver: () => performance.now() - startedAt >= turnMs,
      });
      if (outcome instanceof ContinueLater) {
        await finishJob(db, job, owner, { status: 'continued' }, now());
        metrics.runs.inc({ job: job.name, outcome: 'continued' });
        logger.info(
          { ...log, durationMs: Math.round(performance.now() - startedAt), result: outcome.result },
          'job paused for its turn',
        );
        return { ...job, status: 'queued' };
      }
      const result = outcome;
      await finishJob(db, job, owner, { status: 'succeeded', result }, now());
      metrics.runs.inc({ job: job.name, outcome: 'succeeded' });
      logger.info({ ...log, durationMs: Math.round(performance.now() - startedAt), result }, 'job succeeded');
      return { ...job, status: 'succeeded', result };
    } catch (error) {
      const retry = job.attempts < maxAttempts;
      const message = error instanceof Error ? error.message : String(error);
      await finishJob(
        db,
        job,
        owner,
        retry
          ? { status: 'queued', error: message, retryAt: new Date(now().getTime() + retryDelayMs) }
          : { status: 'failed', error: message },
        now(),
      ).catch((finishError: unknown) => logger.error({ ...log, err: finishError }, 'job outcome not recorded'));
      metrics.runs.inc({ job: job.name, outcome: retry ? 'retried' : 'failed' });
      logger.error({ ...log, err: error, retry }, retry ? 'job failed; it will be retried' : 'job failed for good');
      return { ...job, status: retry ? 'queued' : 'failed', last_error: message };
    } finally {
      timer();
      clearInterval(heartbeat);
    }
  }

  async function tick(): Promise<number> {
    const at = now();
    for (const job of options.jobs) if (job.dailyAt) await scheduleDaily(db, job.name, job.dailyAt, at);
    return runDue();
  }

  /** Runs due jobs one after another until none is left. */
  async function runDue(): Promise<number> {
    let ran = 0;
    while (!stopped) {
      const job = await claimJob(db, owner, names, now(), leaseMs);
      if (!job) break;
      await run(job);
      ran += 1;
    }
    return ran;
  }

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let started = false;
  let ticking = false;
  let wokenDuringTick = false;
  let fastUntil = 0;
  let unsubscribe: (() => void) | undefined;
  const loop = () => {
    if (stopped) return;
    ticking = true;
    // The quick looks after a wake-up only look for queued jobs; daily ones are scheduled at the regular poll.
    const quick = wokenDuringTick || Date.now() < fastUntil;
    wokenDuringTick = false;
    running = (quick ? runDue() : tick())
      .catch((error: unknown) => logger.error({ err: error }, 'job runner could not reach the database; retrying'))
      .finally(() => {
        ticking = false;
        if (stopped) return;
        const fast = wokenDuringTick || Date.now() < fastUntil;
        timer = setTimeout(loop, wokenDuringTick ? 0 : fast ? (options.wakePollMs ?? 100) : (options.pollMs ?? 30_000));
      });
  };
  const wake = () => {
    if (!started || stopped) return;
    fastUntil = Date.now() + (options.wakeWindowMs ?? 3_000);
    if (ticking) {
      wokenDuringTick = true;
      return;
    }
    clearTimeout(timer);
    loop();
  };

  return {
    owner,
    tick,
    async runNow(organizationId, name, runKey) {
      if (!byName.has(name)) throw new Error(`No job is named ${name}.`);
      const queued = await enqueue(db, organizationId, name, runKey, now());
      const claimed = await claimJob(db, owner, [name], now(), leaseMs, { organizationId, id: queued.id });
      if (!claimed) return queued;
      return run(claimed);
    },
    start() {
      if (started) return;
      started = true;
      unsubscribe = onJobsQueued(wake);
      loop();
    },
    wake,
    async stop() {
      stopped = true;
      unsubscribe?.();
      clearTimeout(timer);
      await running;
    },
  };
}

/** Creates a runner and starts its loop (`patron serve`). */
export function startJobRunner(options: JobRunnerOptions): JobRunner {
  const runner = createJobRunner(options);
  runner.start();
  const jobs = options.jobs.map((job) => `${job.name}${job.dailyAt ? ` daily at ${job.dailyAt} local time` : ''}`);
  options.logger.info({ owner: runner.owner, jobs }, 'job runner started');
  return runner;
}
