import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { enqueueMany } from '../../jobs/runner/queue.js';
import { isUuid } from '../../util/uuid.js';

/** One product's generation, queued on the job runner (no schedule of its own). */
export const GENERATE_JOB = 'reviewSummary.generate';
/** The overnight refresh, per organization on its own clock. */
export const REFRESH_JOB = 'reviewSummary.refresh';
export const REFRESH_AT = '02:30';

/** Queues one generation job per product, in the caller's transaction. The run key starts with the product id. */
export async function queueGenerations(
  db: Kysely<DB>,
  organizationId: string,
  productIds: readonly string[],
  now: Date,
): Promise<void> {
  await enqueueMany(db, {
    organizationId,
    name: GENERATE_JOB,
    runKeys: productIds.map((productId) => `${productId}/${now.toISOString()}/${randomUUID()}`),
    now,
  });
}

export function productOfRunKey(runKey: string): string {
  const productId = runKey.split('/')[0] ?? '';
  if (!isUuid(productId)) {
    throw new Error(`A ${GENERATE_JOB} run key starts with a product id (got "${runKey}").`);
  }
  return productId;
}
