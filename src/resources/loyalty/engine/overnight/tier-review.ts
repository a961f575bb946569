import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../../db/schema.js';
import { recordEvents } from '../../../../events/outbox.js';
import { recalculateTiers } from '../tiers.js';

/**
 * The nightly review of rolling-window tiers: members whose tierReviewAt has come get exactly the tier their points
 * of the last window earn (loyaltyMembership.tierChanged when it moves) and, keeping a tier, their next review. In
 * batches walked by (tierReviewAt, id), each its own short transaction. Returns members reviewed and moved.
 */
export async function reviewDueTiers(db: Kysely<DB>, organizationId: string, now: Date, batchSize = 1000) {
  let reviewed = 0;
  let moved = 0;
  let after: { at: Date; id: string } | null = null;
  for (;;) {
    const { rows }: { rows: { id: string; tier_review_at: Date }[] } = await sql<{ id: string; tier_review_at: Date }>`
      select id, tier_review_at from loyalty_memberships
      where organization_id = ${organizationId}::uuid and tier_review_at <= ${now}::timestamptz
        and left_at is null and not tier_assigned_manually
        ${after ? sql`and (tier_review_at, id) > (${after.at}::timestamptz, ${after.id}::uuid)` : sql``}
      order by tier_review_at, id limit ${batchSize}`.execute(db);
    if (rows.length === 0) break;
    const ids = rows.map((row) => row.id);
    moved += await db.transaction().execute(async (trx) => {
      const events = await recalculateTiers(trx, organizationId, { membershipIds: ids }, 'review');
      await recordEvents(trx, events);
      return events.length;
    });
    reviewed += rows.length;
    if (rows.length < batchSize) break;
    const last: { id: string; tier_review_at: Date } = rows[rows.length - 1]!;
    after = { at: last.tier_review_at, id: last.id };
  }
  return { reviewed, moved };
}
