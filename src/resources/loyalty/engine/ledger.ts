import { sql, type Transaction } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { DB, LoyaltyTransactionKind, Metadata } from '../../../db/schema.js';
import type { EventToRecord } from '../../../events/outbox.js';
import { conflict, notFound } from '../../../http/errors.js';
import { recalculateTiers } from './tiers.js';
import type { MembershipRow } from '../../../records/loyalty/membership.js';
import { transactionEvent, type TransactionRow } from '../../../records/loyalty/transaction.js';

const MAX_POINTS = Number.MAX_SAFE_INTEGER;

export interface PointsSource {
  ruleId?: string | null;
  rewardId?: string | null;
  orderId?: string | null;
  eventName?: string | null;
  /** Idempotency key of the credit within the membership (e.g. `order:<id>:rule:<id>`): applied at most once. */
  key?: string | null;
}

export interface ApplyPointsInput {
  organizationId: string;
  membershipId: string;
  /** Signed, never 0. */
  points: number;
  kind: LoyaltyTransactionKind;
  reason?: string | null;
  source?: PointsSource;
  /** For a credit: when it lapses. Default: the program's points expiry counted from createdAt (null = never). */
  expiresAt?: Date | null;
  /** A historical entry's time (POST /loyalty-history); default now. */
  createdAt?: Date;
  metadata?: Metadata;
  /**
   * How a debit is taken from the open credits: 'fifo' (default) takes the soonest-expiring first; 'none' when the
   * caller has already zeroed the credits it debits (points expiry).
   */
  consume?: 'fifo' | 'none';
  /** Members who left cannot earn or spend; the expiry job and deletions of history may still need to. */
  allowLeft?: boolean;
}

export interface AppliedPoints {
  transaction: TransactionRow;
  membership: MembershipRow;
  /** loyaltyTransaction.created and any loyaltyMembership.tierChanged: record them with the caller's other events. */
  events: EventToRecord[];
}

/**
 * The one way points move (D31). The balance changes in a single conditional UPDATE (`balance + d` must stay within
 * 0..2^53-1), so two concurrent spends can never both pass: the second waits for the first's row lock, re-reads the
 * new balance and fails its condition (409). The membership row stays locked until the caller commits, which also
 * serializes the FIFO bookkeeping of credits. A credit may raise the member's tier (upgrade only).
 *
 * Returns null when `source.key` was already applied to this membership (earning is idempotent per source).
 */
export async function applyPoints(trx: Transaction<DB>, input: ApplyPointsInput): Promise<AppliedPoints | null> {
  const { organizationId, membershipId, points } = input;
  if (!Number.isSafeInteger(points) || points === 0)
    throw new Error('applyPoints: points must be a non-zero safe integer');
  const source = input.source ?? {};

  if (source.key) {
    // Lock first, then look: two credits for the same key are serialized on the membership row.
    const locked = await trx
      .selectFrom('loyalty_memberships')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', '=', membershipId)
      .forUpdate()
      .executeTakeFirst();
    if (!locked) throw notFound('The loyalty membership');
    const seen = await trx
      .selectFrom('loyalty_transactions')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('loyalty_membership_id', '=', membershipId)
      .where('source_key', '=', source.key)
      .executeTakeFirst();
    if (seen) return null;
  }

  const { rows } = await sql<MembershipRow & { program_points_expiry_days: number | null }>`
    update loyalty_memberships m set
      points_balance = m.points_balance + ${points}::bigint,
      lifetime_points = least(m.lifetime_points + greatest(${points}::bigint, 0), ${MAX_POINTS}::bigint),
      updated_at = now()
    where m.organization_id = ${organizationId}::uuid and m.id = ${membershipId}::uuid
      and (${input.allowLeft ?? false} or m.left_at is null)
      and m.points_balance + ${points}::bigint between 0 and ${MAX_POINTS}::bigint
    returning m.*, (select p.points_expiry_days from loyalty_programs p
      where p.organization_id = m.organization_id and p.id = m.loyalty_program_id) as program_points_expiry_days`.execute(
    trx,
  );
  const updated = rows[0];
  if (!updated) throw await refusal(trx, organizationId, membershipId, points);
  const { program_points_expiry_days: expiryDays, ...membership } = updated;

  const createdAt = input.createdAt ?? new Date();
  const credit = points > 0;
  const expiresAt = !credit
    ? null
    : input.expiresAt !== undefined
      ? input.expiresAt
      : expiryDays === null
        ? null
        : new Date(createdAt.getTime() + expiryDays * 86_400_000);
  const transaction = await trx
    .insertInto('loyalty_transactions')
    .values({
      organization_id: organizationId,
      id: uuidv7(),
      loyalty_membership_id: membershipId,
      customer_id: membership.customer_id,
      kind: input.kind,
      points,
      balance_after: membership.points_balance,
      reason: input.reason ?? null,
      loyalty_rule_id: source.ruleId ?? null,
      loyalty_reward_id: source.rewardId ?? null,
      order_id: source.orderId ?? null,
      event_name: source.eventName ?? null,
      source_key: source.key ?? null,
      expires_at: expiresAt,
      remaining: credit ? points : null,
      metadata: JSON.stringify(input.metadata ?? {}),
      created_at: createdAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();

  if (!credit && (input.consume ?? 'fifo') === 'fifo') await consumeCredits(trx, organizationId, membershipId, -points);
  const tierEvents = credit
    ? await recalculateTiers(trx, organizationId, { membershipIds: [membershipId] }, 'upgrade')
    : [];
  const latest = tierEvents.length
    ? await trx
        .selectFrom('loyalty_memberships')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('id', '=', membershipId)
        .executeTakeFirstOrThrow()
    : membership;
  return { transaction, membership: latest, events: [transactionEvent(organizationId, transaction), ...tierEvents] };
}

/**
 * Takes `amount` points from the member's open credits, soonest-expiring first (never-expiring last), oldest first
 * within a date: sum(remaining) stays equal to the balance, so points expiry lapses exactly what was not spent.
 */
async function consumeCredits(
  trx: Transaction<DB>,
  organizationId: string,
  membershipId: string,
  amount: number,
): Promise<void> {
  await sql`
    update loyalty_transactions t set remaining = t.remaining - least(t.remaining, ${amount}::bigint - c.before)
    from (
      select id, coalesce(sum(remaining) over (order by expires_at asc nulls last, created_at, id
        rows between unbounded preceding and 1 preceding), 0) as before
      from loyalty_transactions
      where organization_id = ${organizationId}::uuid and loyalty_membership_id = ${membershipId}::uuid and remaining > 0
    ) c
    where t.organization_id = ${organizationId}::uuid and t.id = c.id and c.before < ${amount}::bigint`.execute(trx);
}

/** Why the conditional UPDATE matched nothing: no such member (404), a member who left, or the balance (409). */
async function refusal(trx: Transaction<DB>, organizationId: string, membershipId: string, points: number) {
  const row = await trx
    .selectFrom('loyalty_memberships')
    .select(['points_balance', 'left_at'])
    .where('organization_id', '=', organizationId)
    .where('id', '=', membershipId)
    .executeTakeFirst();
  if (!row) return notFound('The loyalty membership');
  if (row.left_at) return conflict('The member has left the program; points cannot change until they rejoin.');
  if (points < 0) {
    return conflict(`The balance is ${row.points_balance} points; removing ${-points} would take it below 0.`);
  }
  return conflict(
    `The balance is ${row.points_balance} points; adding ${points} would exceed the maximum of ${MAX_POINTS}.`,
  );
}
