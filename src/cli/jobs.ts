import { pino } from 'pino';
import { createJobRunner } from '../jobs/runner/runner.js';
import { allOrganizations, scheduledJobs } from '../compose.js';
import { withCli } from './context.js';

/**
 * `patron jobs run <name> --org ID [--now ISO]`: runs one job for one organization at once, through the job table
 * (run key `manual:<now>`), so it is logged and recorded like a scheduled run. `--now` sets the job's clock (what
 * is due), e.g. to rehearse a night. Prints the job row as JSON.
 */
export async function runJob(name: string, options: { org: string; now?: string }): Promise<void> {
  const now = options.now ? new Date(options.now) : new Date();
  if (Number.isNaN(now.getTime()) || (options.now && !/(Z|[+-]\d\d:?\d\d)$/i.test(options.now))) {
    throw new Error(
      `--now must be an ISO 8601 timestamp with an offset, e.g. 2026-01-01T03:00:00Z (got "${options.now}").`,
    );
  }
  await withCli(async ({ config, database }) => {
    if (!(await allOrganizations(database.db)).some((organization) => organization.id === options.org)) {
      throw new Error(`No organization has the id ${options.org}.`);
    }
    const runner = createJobRunner({
      db: database.db,
      jobs: scheduledJobs(config),
      logger: pino({ level: config.logLevel }, pino.destination(2)),
      now: () => now,
    });
    const job = await runner.runNow(options.org, name, `manual:${now.toISOString()}`);
    process.stdout.write(
      JSON.stringify({
        id: job.id,
        name: job.name,
        organizationId: job.organization_id,
        runKey: job.run_key,
        status: job.status,
        result: job.result,
        error: job.last_error,
      }) + '\n',
    );
    if (job.status !== 'succeeded') process.exitCode = 1;
  });
}
