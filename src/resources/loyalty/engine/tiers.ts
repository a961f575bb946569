import { sql, type Transaction } from 'kysely';
import { plainArrayLiteral } from '../../../db/arrays.js';
import { PREPARE } from '../../../db/prepared.js';
import type { DB } from '../../../db/schema.js';
import type { EventToRecord } from '../../../core/event-to-record.js';
import { recordActivity } from './activity.js';
import { membershipEvent, type MembershipRow } from '../../../records/loyalty/membership.js';

/**
 * - upgrade: after points were credited: a member only moves up (downgrades wait for a review or a config change);
 *   members of a program without tiers are not even read.
 * - full: after tier configuration changed or a tier was unpinned: the member gets exactly the tier the points earn.
 * - review: the nightly review of rolling tiers: as full, and a member who keeps the tier is reviewed again one
 *   window later.
 */
export type TierMode = 'upgrade' | 'full' | 'review';
export type TierScope = { membershipIds: readonly string[] } | { programId: string };

/**
 * Recalculates the tiers of unpinned, active members in one statement and returns the loyaltyMembership.tierChanged
 * events of those who moved (also written to their activity feed). Qualifying points: lifetime points for a lifetime
 * window; for a rolling window, the points credited within the last `months`. A new tier sets tierAttainedAt = now
 * and, for a rolling window, tierReviewAt = now + months; no tier clears both.
 */
export async function recalculateTiers(
  trx: Transaction<DB>,
  organizationId: string,
  scope: TierScope,
  mode: TierMode,
): Promise<EventToRecord[]> {
  const scopeCondition =
    'membershipIds' in scope
      ? sql`m.id = any(${plainArrayLiteral(scope.membershipIds)}::uuid[])`
      : sql`m.loyalty_program_id = ${scope.programId}::uuid`;
  if ('membershipIds' in scope && scope.membershipIds.length === 0) return [];
  // Upgrades follow every credit; where the organization has no tiers at all, a prepared look, much cheaper than
  // planning the statement below, saves planning it for nothing.
  if (mode === 'upgrade' && !(await hasTiers(trx, organizationId))) return [];
  // Not prepared: its generic plan executes slower than planning and running a custom one
  // (docs/journal/2026-11-21-earnloyalty-import-ratio.md).
  const { rows } = await sql<MembershipRow & { old_tier_id: string | null }>`
    with scoped as (
      select m.id, m.loyalty_program_id, m.loyalty_tier_id as old_tier_id, m.lifetime_points,
        p.tier_window, p.tier_window_months
      from loyalty_memberships m
      join loyalty_programs p on p.organization_id = m.organization_id and p.id = m.loyalty_program_id
      where m.organization_id = ${organizationId}::uuid and ${scopeCondition}
        and not m.tier_assigned_manually and m.left_at is null
        ${mode === 'upgrade' ? sql`and m.loyalty_program_id in (select t.loyalty_program_id from loyalty_tiers t where t.organization_id = ${organizationId}::uuid)` : sql``}
      order by m.id
      for update of m
    ),
    qualified as (
      select s.*,
        case when s.tier_window = 'rolling' then coalesce((
          select sum(t.points) from loyalty_transactions t
          where t.organization_id = ${organizationId}::uuid and t.loyalty_membership_id = s.id and t.points > 0
            and t.created_at > now() - make_interval(months => s.tier_window_months)), 0)
        else s.lifetime_points end as qualifying
      from scoped s
    ),
    target as (
      select q.*, nt.id as new_tier_id, coalesce(nt.threshold_points, -1) as new_threshold,
        coalesce(ot.threshold_points, -1) as old_threshold
      from qualified q
      left join lateral (
        select t.id, t.threshold_points from loyalty_tiers t
        where t.organization_id = ${organizationId}::uuid and t.loyalty_program_id = q.loyalty_program_id
          and t.threshold_points <= q.qualifying
        order by t.threshold_points desc limit 1
      ) nt on true
      left join loyalty_tiers ot on ot.organization_id = ${organizationId}::uuid and ot.id = q.old_tier_id
    ),
    changed as (
      update loyalty_memberships m set
        loyalty_tier_id = t.new_tier_id,
        tier_attained_at = case when t.new_tier_id is null then null
          when t.new_tier_id is distinct from t.old_tier_id then now() else m.tier_attained_at end,
        tier_review_at = case when t.new_tier_id is not null and t.tier_window = 'rolling'
          then now() + make_interval(months => t.tier_window_months) else null end,
        updated_at = case when t.new_tier_id is distinct from t.old_tier_id then now() else m.updated_at end
      from target t
      where m.organization_id = ${organizationId}::uuid and m.id = t.id
        and (
          (t.new_tier_id is distinct from t.old_tier_id and (${mode} <> 'upgrade' or t.new_threshold > t.old_threshold))
          or ${mode} = 'review'
        )
      returning m.*, t.old_tier_id
    )
    select * from changed`.execute(trx);

  const moved = rows.filter((row) => row.loyalty_tier_id !== row.old_tier_id);
  if (moved.length === 0) return [];
  await recordActivity(
    trx,
    organizationId,
    moved.map((row) => ({
      membershipId: row.id,
      customerId: row.customer_id,
      type: 'tierChanged',
      tierId: row.loyalty_tier_id,
      data: { fromTierId: row.old_tier_id, toTierId: row.loyalty_tier_id },
    })),
  );
  return moved.map(({ old_tier_id: _old, ...row }) =>
    membershipEvent(organizationId, 'loyaltyMembership.tierChanged', row),
  );
}

const hasTiers = async (trx: Transaction<DB>, organizationId: string) =>
  (
    await sql<{
      found: boolean;
    }>`${PREPARE}select exists (select 1 from loyalty_tiers where organization_id = ${organizationId}::uuid) as found`.execute(
      trx,
    )
  ).rows[0]!.found;
