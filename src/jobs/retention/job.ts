import type { RetentionConfig } from '../../config/index.js';
import type { JobDefinition } from '../../core/job-definition.js';
import { dropAuditPartitionsBefore, ensureAuditPartitions } from '../../db/audit-partitions.js';
import {
  inBatches,
  pruneDeliveries,
  pruneEvents,
  pruneIdempotencyKeys,
  pruneImportJobRecords,
  pruneExpiredExports,
  pruneJobs,
  pruneMail,
  pruneSessions,
  pruneSignInLinks,
} from './prune.js';

/** The retention job's name in the job table and for `patron jobs run`. */
export const RETENTION_JOB = 'retention.prune';
/** When it runs, on each organization's clock (docs/api.md#retention). */
export const RETENTION_AT = '04:00';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Prunes one organization's bounded tables, each past its window (docs/api.md#retention): delivery records, then
 * the events no delivery refers to any more, finished jobs, replaced import provenance, expired idempotency keys,
 * expired export files, settled mail, ended dashboard sessions and spent sign-in links.
 * Every statement deletes at most `batchRows` rows in a transaction of its own, walking a primary key from where the
 * previous one stopped, and skips rows a request holds instead of waiting for them; two runs of it at once (two
 * processes, or one started by hand) delete different rows. The windows are counted back from the job's clock.
 */
export function retentionJob(config: RetentionConfig): JobDefinition {
  return {
    name: RETENTION_JOB,
    dailyAt: RETENTION_AT,
    async run({ db, organizationId, now }) {
      const window = (days: number) => ({
        organizationId,
        cutoff: new Date(now.getTime() - days * DAY_MS),
        limit: config.batchRows,
      });
      // Deliveries first: the events they held become prunable in the same run.
      const deliveries = await inBatches((after) => pruneDeliveries(db, window(config.deliveriesDays), after));
      const events = await inBatches((after) => pruneEvents(db, window(config.eventsDays), after));
      const jobs = await inBatches((after) => pruneJobs(db, window(config.jobsDays), after));
      const importJobRecords = await inBatches((after) => pruneImportJobRecords(db, window(config.jobsDays), after));
      const idempotencyKeys = await inBatches(
        (after) => pruneIdempotencyKeys(db, { organizationId, now, limit: config.batchRows }, after),
        '',
      );
      const exportJobs = await inBatches((after) =>
        pruneExpiredExports(db, { ...window(config.jobsDays), now }, after),
      );
      const mail = await inBatches((after) => pruneMail(db, window(config.mailDays), after));
      const expiry = { organizationId, now, limit: config.batchRows };
      const sessions = await inBatches((after) => pruneSessions(db, expiry, after));
      const signInLinks = await inBatches((after) => pruneSignInLinks(db, expiry, after));
      // The audit log is kept by month for every organization at once (docs/api.md#audit-log): the months ahead are
      // made and the months wholly past the window dropped, whichever organization's run comes first.
      const auditPartitionsMade = await ensureAuditPartitions(db, now);
      const auditPartitionsDropped = (
        await dropAuditPartitionsBefore(db, new Date(now.getTime() - config.auditDays * DAY_MS))
      ).length;
      return {
        deliveries,
        events,
        jobs,
        importJobRecords,
        idempotencyKeys,
        exportJobs,
        mail,
        sessions,
        signInLinks,
        auditPartitionsMade,
        auditPartitionsDropped,
      };
    },
  };
}
