import { sql, type Transaction } from 'kysely';
import { uuidv7 } from '../../../util/ids.js';
import type { DB } from '../../../db/schema.js';
import { recordEvents } from '../../../events/outbox.js';
import type { EventToRecord } from '../../../core/event-to-record.js';
import { validationError } from '../../../core/errors.js';
import {
  checkImportSize,
  importCounts,
  strictFailure,
  type ImportAction,
  type Skipped,
} from '../../../resource-kit/imports.js';
import { resolveCustomers } from '../../../resource-kit/references.js';
import { recordActivity } from '../engine/activity.js';
import { applyPoints } from '../engine/ledger.js';
import { insertMemberships, membershipsByIds } from './queries.js';
import type { MembershipImportBody } from './schemas.js';
import {
  type LoyaltyMembership,
  membershipEvent,
  toMembership,
  type MembershipRow,
} from '../../../records/loyalty/membership.js';

interface ResolvedRow {
  index: number;
  customerId: string;
  programId: string;
  reviewMonths: number | null;
  pointsBalance: number | undefined;
  /** undefined: leave the tier alone; null: remove it. */
  tierId: string | null | undefined;
}

export const IMPORT_BALANCE_REASON = 'Balance set by membership import';

/**
 * POST /loyalty-memberships/import (docs/api.md#membership-import): creates memberships or updates the member of the
 * same customer and program. pointsBalance becomes the balance through one ledger adjustment of the difference;
 * loyaltyTierId sets the tier (a pinned member stays pinned). A row whose customer, program or tier is missing is
 * skipped (strict: 422).
 */
export async function importMemberships(
  trx: Transaction<DB>,
  organizationId: string,
  body: MembershipImportBody,
): Promise<{
  data: LoyaltyMembership[];
  skipped: Skipped[];
  created: number;
  updated: number;
  unchanged: number;
}> {
  checkImportSize(body.data);
  const customers = await resolveCustomers(
    trx,
    organizationId,
    body.data.map((row) => row.customer),
  );
  const programs = await trx
    .selectFrom('loyalty_programs')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .execute();
  const tiers = await trx
    .selectFrom('loyalty_tiers')
    .select(['id', 'loyalty_program_id'])
    .where('organization_id', '=', organizationId)
    .execute();
  const tierProgram = new Map(tiers.map((tier) => [tier.id, tier.loyalty_program_id]));

  const skipped: Skipped[] = [];
  const resolved: ResolvedRow[] = [];
  const skip = (index: number, message: string) => {
    const entry = { index, message };
    if (body.strict) throw strictFailure(entry);
    skipped.push(entry);
  };
  body.data.forEach((row, index) => {
    const customerId = customers.get(row.customer);
    if (!customerId) return skip(index, `Customer "${row.customer}" does not exist.`);
    const program = row.loyaltyProgramId
      ? programs.find((candidate) => candidate.id === row.loyaltyProgramId!.toLowerCase())
      : programs.length === 1
        ? programs[0]
        : undefined;
    if (!program) {
      return skip(
        index,
        row.loyaltyProgramId
          ? `Loyalty program ${row.loyaltyProgramId} does not exist.`
          : 'The organization has several loyalty programs; name one with loyaltyProgramId.',
      );
    }
    const tierId =
      row.loyaltyTierId === undefined || row.loyaltyTierId === null
        ? row.loyaltyTierId
        : row.loyaltyTierId.toLowerCase();
    if (tierId && tierProgram.get(tierId) !== program.id)
      return skip(index, `Loyalty tier ${row.loyaltyTierId} does not exist in the member's program.`);
    resolved.push({
      index,
      customerId,
      programId: program.id,
      reviewMonths: program.tier_window === 'rolling' ? program.tier_window_months : null,
      pointsBalance: row.pointsBalance,
      tierId,
    });
  });
  refuseRepeats(resolved);

  const { rows: existing } = await sql<MembershipRow>`
    select m.* from loyalty_memberships m
    join unnest(${resolved.map((row) => row.programId)}::uuid[], ${resolved.map((row) => row.customerId)}::uuid[]) as k(program_id, customer_id)
      on m.loyalty_program_id = k.program_id and m.customer_id = k.customer_id
    where m.organization_id = ${organizationId}::uuid
    order by m.id
    for update of m`.execute(trx);
  const existingOf = new Map(existing.map((row) => [`${row.loyalty_program_id}:${row.customer_id}`, row]));
  const membershipIdOf = new Map<number, string>();
  const creates = resolved.filter((row) => !existingOf.has(`${row.programId}:${row.customerId}`));
  const created = await insertMemberships(
    trx,
    organizationId,
    creates.map((row) => ({
      id: uuidv7(),
      customerId: row.customerId,
      programId: row.programId,
      tierId: row.tierId ?? null,
      reviewMonths: row.reviewMonths,
    })),
  );
  const createdIds = new Set(created.map((row) => row.id));
  // Joining comes first on a new member's feed, before the balance the row sets
  // (docs/api.md#member-activity-feed).
  await recordActivity(
    trx,
    organizationId,
    created.map((row) => ({ membershipId: row.id, customerId: row.customer_id, type: 'joined', reason: 'import' })),
  );
  for (const row of created)
    membershipIdOf.set(
      creates.find((entry) => entry.customerId === row.customer_id && entry.programId === row.loyalty_program_id)!
        .index,
      row.id,
    );

  const events: EventToRecord[] = [];
  // What each row did (docs/api.md#membership-import): a row that sets the stored balance and tier is unchanged.
  const changed = new Set<number>();
  for (const row of resolved) {
    const before = existingOf.get(`${row.programId}:${row.customerId}`);
    const membershipId = before?.id ?? membershipIdOf.get(row.index)!;
    membershipIdOf.set(row.index, membershipId);
    const current = before?.points_balance ?? 0;
    if (row.pointsBalance !== undefined && row.pointsBalance !== current) {
      const applied = await applyPoints(trx, {
        organizationId,
        membershipId,
        points: row.pointsBalance - current,
        kind: 'adjusted',
        reason: IMPORT_BALANCE_REASON,
        allowLeft: true,
      });
      events.push(...applied!.events);
      changed.add(row.index);
    }
    if (before && row.tierId !== undefined && row.tierId !== before.loyalty_tier_id) {
      const moved = await sql<MembershipRow>`
        update loyalty_memberships set loyalty_tier_id = ${row.tierId}::uuid,
          tier_assigned_manually = tier_assigned_manually and ${row.tierId}::uuid is not null,
          tier_attained_at = case when ${row.tierId}::uuid is null then null else now() end,
          tier_review_at = case when ${row.tierId}::uuid is null or tier_assigned_manually or ${row.reviewMonths}::int is null then null
            else now() + make_interval(months => ${row.reviewMonths}::int) end,
          updated_at = now()
        where organization_id = ${organizationId}::uuid and id = ${membershipId}::uuid
        returning *`.execute(trx);
      events.push(membershipEvent(organizationId, 'loyaltyMembership.tierChanged', moved.rows[0]!));
      changed.add(row.index);
      await recordActivity(trx, organizationId, [
        {
          membershipId,
          customerId: row.customerId,
          type: 'tierChanged',
          tierId: row.tierId,
          data: { fromTierId: before.loyalty_tier_id, toTierId: row.tierId, import: true },
        },
      ]);
    }
  }

  const finalRows = new Map(
    (await membershipsByIds(trx, organizationId, [...new Set(membershipIdOf.values())])).map((row) => [row.id, row]),
  );
  const ordered = resolved.map((row) => finalRows.get(membershipIdOf.get(row.index)!)!);
  // A new member's created event carries the membership as the import leaves it (balance and tier included).
  const createdEvents = ordered
    .filter((row) => createdIds.has(row.id))
    .map((row) => membershipEvent(organizationId, 'loyaltyMembership.created', row));
  await recordEvents(trx, [...createdEvents, ...events]);
  const actions = resolved.map((row, at): { action: ImportAction } => ({
    action: createdIds.has(ordered[at]!.id) ? 'created' : changed.has(row.index) ? 'updated' : 'unchanged',
  }));
  return { data: ordered.map(toMembership), skipped, ...importCounts(actions) };
}

/** Two rows for the same customer and program (by id and by email, say) are ambiguous: 400 naming both. */
function refuseRepeats(rows: readonly ResolvedRow[]): void {
  const seen = new Map<string, number>();
  for (const row of rows) {
    const key = `${row.programId}:${row.customerId}`;
    const first = seen.get(key);
    if (first !== undefined) {
      throw validationError(
        `Invalid request: body.data[${row.index}].customer is the same customer as body.data[${first}].customer in the same program; send each member once.`,
        [{ path: `body.data[${row.index}].customer`, message: `repeats body.data[${first}].customer` }],
      );
    }
    seen.set(key, row.index);
  }
}
