import type { Kysely } from 'kysely';
import Type, { type Static } from 'typebox';
import type { JobDefinition } from '../../core/job-definition.js';
import type { PatronApp, PlatformServices, ResourceModule } from '../../core/types.js';
import { deleteTestData } from '../../db/organization-delete.js';
import type { DB } from '../../db/schema.js';
import { authOf } from '../../http/auth.js';
import { enqueueMany } from '../../jobs/runner/queue.js';
import { jobsQueued } from '../../jobs/runner/wake.js';
import { Timestamp, Uuid } from '../../records/common.js';
import { uuidv7 } from '../../util/ids.js';
import { insertDefaultProgram } from '../loyalty/index.js';

/** POST /test-data/reset (docs/api.md#test-mode): owners and admins in the dashboard, keys given it. */
export const TEST_DATA_WRITE = 'testData:write';

/** The job that deletes a test twin's records; its run key is the reset's id. */
export const TEST_DATA_RESET_JOB = 'testData.reset';

/**
 * What a reset keeps of the test twin (docs/api.md#test-mode): its keys, the endpoints its events go to, the audit log
 * (nothing in the API deletes an entry), replayable idempotent answers and the job runner's own rows (the reset is
 * one). The twin's row itself (its name, time zone, plan and settings) is not a tenant table and is kept too; users
 * and sessions are the live organization's, never the twin's.
 */
const KEPT_TABLES: ReadonlySet<string> = new Set([
  'api_keys',
  'webhook_endpoints',
  'audit_log',
  'idempotency_keys',
  'jobs',
  'users',
  'sessions',
  'sign_in_links',
  'server_processes',
]);

export const TestDataReset = Type.Object(
  {
    id: Uuid,
    status: Type.Unsafe<'queued'>({
      type: 'string',
      enum: ['queued'],
      description: 'The reset runs in the background, within seconds; test data written meanwhile may be deleted too.',
    }),
    livemode: Type.Boolean({ description: 'Always false: only test data is ever reset.' }),
    createdAt: Timestamp,
  },
  { $id: 'TestDataReset', additionalProperties: false },
);
export type TestDataReset = Static<typeof TestDataReset>;

async function queueReset(db: Kysely<DB>, organizationId: string): Promise<TestDataReset> {
  const id = uuidv7();
  const now = new Date();
  await enqueueMany(db, { organizationId, name: TEST_DATA_RESET_JOB, runKeys: [id], now });
  jobsQueued();
  return { id, status: 'queued', livemode: false, createdAt: now.toISOString() };
}

function testDataRoutes(app: PatronApp, { db }: PlatformServices): void {
  app.post(
    '/test-data/reset',
    {
      config: { permission: TEST_DATA_WRITE, cost: 10, testModeOnly: true },
      schema: {
        operationId: 'resetTestData',
        summary:
          "Delete every record of the organization's test data, in the background (test keys and test mode only)",
        description:
          'Keeps the test keys, webhook endpoints, settings and audit log; deletes customers, products, orders, loyalty, ' +
          'reviews, questions, wishlists, templates, events, deliveries, mail and jobs of the test data, and gives it ' +
          'the default loyalty program again.',
        tags: ['test-data'],
        response: { 202: TestDataReset },
      },
    },
    async (request, reply) => reply.code(202).send(await queueReset(db, authOf(request).organizationId)),
  );
}

/**
 * Deletes the twin's records as a newly created organization has none, then gives it the default loyalty program a
 * new organization starts with (docs/api.md#the-default-loyalty-program).
 */
function resetJob(batchRows: number): JobDefinition {
  return {
    name: TEST_DATA_RESET_JOB,
    async run({ db, organizationId }) {
      const deleted = await deleteTestData(db, organizationId, { batchRows, keep: KEPT_TABLES });
      await insertDefaultProgram(db, organizationId);
      return deleted;
    },
  };
}

export const testDataResource: ResourceModule = {
  name: 'test-data',
  description:
    "Test mode's data: resetting it deletes every record test keys and test-mode sessions made, and never touches live data.",
  permissions: [TEST_DATA_WRITE],
  routes: testDataRoutes,
  jobs: ({ config }) => [resetJob(config.retention.batchRows)],
};
