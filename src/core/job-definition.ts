import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import type { Logger } from '../util/logger.js';

export interface JobContext {
  db: Kysely<DB>;
  organizationId: string;
  /** Which run this is, e.g. the organization's local date for a daily job. */
  runKey: string;
  /** The runner's clock when the run started: what "due" means for the job. */
  now: Date;
  logger: Logger;
  /** 1 for the first run of this job row, counting retries. */
  attempt: number;
  /** True when a failure now leaves the job failed for good (no retry follows). */
  finalAttempt: boolean;
  /**
   * True once this run has had its turn (the runner's time slice): a long job commits what it has and returns
   * `new ContinueLater(result)`, so the runner can take another organization's due job before it goes on.
   */
  turnOver(): boolean;
}

/**
 * What a long job's run returns to go on later rather than finish: the runner queues its run again at once, behind
 * jobs already due (docs/api.md#job-runner). A turn is not an attempt: it never counts towards the retries.
 */
export class ContinueLater {
  constructor(readonly result: Record<string, number>) {}
}

export interface JobDefinition {
  /** Unique; stored in jobs.name. */
  name: string;
  /**
   * HH:MM on each organization's clock (organizations.timezone): the job runs once per local day from then on.
   * Without it the job only runs when queued (a row inserted with enqueue/enqueueMany, e.g. one per product).
   */
  dailyAt?: string;
  /** Does the work, in short transactions of its own; the result is stored on the job row and logged. */
  run(context: JobContext): Promise<Record<string, number> | ContinueLater>;
}
