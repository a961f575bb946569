import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { uuidv7 } from '../../../util/ids.js';
import { plainArrayLiteral } from '../../../db/arrays.js';
import { PREPARE } from '../../../db/prepared.js';
import type { DB, LoyaltyTransactionKind, Metadata } from '../../../db/schema.js';
import { recordEvents, SQL_UUID_V7 } from '../../../events/outbox.js';
import type { EventToRecord } from '../../../core/event-to-record.js';
import { conflict, notFound } from '../../../core/errors.js';
import { lockMemberships } from './locks.js';
import { recalculateTiers } from './tiers.js';
import { pointsActivityFrom, recordActivity } from './activity.js';
import { POINTS_ACTIVITY_KIND } from '../../../records/loyalty/activity-entry.js';
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
 * The one way points move (docs/api.md#points-adjustments-and-the-ledger). The balance changes in a single conditional
 * UPDATE (`balance + d` must stay within 0..2^53-1), so two concurrent spends can never both pass: the second waits for
 * the first's row lock, re-reads the new balance and fails its condition (409). The membership row stays locked until
 * the caller commits, which also serializes the FIFO bookkeeping of credits. A credit may raise the member's tier
 * (upgrade only).
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
  // Every points movement is on the member's activity feed, at the ledger entry's own time (history keeps its date).
  await recordActivity(trx, organizationId, [
    {
      membershipId,
      customerId: membership.customer_id,
      type: POINTS_ACTIVITY_KIND[input.kind],
      points,
      reason: transaction.reason,
      transactionId: transaction.id,
      rewardId: transaction.loyalty_reward_id,
      createdAt: transaction.created_at,
    },
  ]);

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

/* ---- earned credits, many members at once ---- */

/** One earned credit. `key` makes it idempotent per membership (the ledger's unique source_key). */
export interface Credit {
  membershipId: string;
  points: number;
  reason: string | null;
  key: string | null;
  /**
   * The key names a record this transaction created (an order being imported), so it cannot have been applied
   * before and is not looked up.
   */
  keyIsNew?: boolean;
  ruleId?: string | null;
  orderId?: string | null;
  eventName?: string | null;
  metadata?: Metadata;
}

export interface Credited {
  /** Written now, in input order (credits already applied or refused are absent). */
  transactions: TransactionRow[];
  /** The earlier credit's id per (member, key) already applied; read it with repeatOf. */
  repeats: Map<string, string>;
  /** loyaltyTransaction.created per credit, then loyaltyMembership.tierChanged per member moved up. */
  events: EventToRecord[];
}

const keyOf = (membershipId: string, key: string) => `${membershipId}\u0000${key}`;

/**
 * Earned credits for many members in a fixed number of statements (the set-based twin of applyPoints for credits,
 * which order imports need). The caller holds the members' row locks (taken in id order before its first write,
 * as every multi-member writer does: see engine/locks.ts), which is what makes the keys checked here stay
 * unapplied until commit. Keys already applied are dropped, each member's balance moves once by the sum of their
 * credits, and the ledger rows get running balances in input order. Members who left earn nothing (their credits
 * are dropped), as does a member whose balance would pass 2^53-1. Expiry is the program's points expiry counted
 * from now, exactly as applyPoints counts it. Tiers can only move up here.
 */
export async function creditPoints(
  trx: Transaction<DB>,
  organizationId: string,
  credits: readonly Credit[],
): Promise<Credited> {
  const repeats = new Map<string, string>();
  const wanted = credits.filter((credit) => credit.points > 0);
  if (wanted.length === 0) return { transactions: [], repeats, events: [] };

  const keyed = wanted.filter((credit) => credit.key !== null && !credit.keyIsNew);
  if (keyed.length) {
    const { rows } = await sql<{ loyalty_membership_id: string; source_key: string; id: string }>`${PREPARE}
      select t.loyalty_membership_id, t.source_key, t.id from loyalty_transactions t
      join unnest(${plainArrayLiteral(keyed.map((credit) => credit.membershipId))}::uuid[], ${keyed.map((credit) => credit.key)}::text[]) as k(membership_id, source_key)
        on t.loyalty_membership_id = k.membership_id and t.source_key = k.source_key
      where t.organization_id = ${organizationId}::uuid`.execute(trx);
    for (const row of rows) repeats.set(keyOf(row.loyalty_membership_id, row.source_key), row.id);
  }
  const seen = new Set<string>();
  const fresh = wanted.filter((credit) => {
    if (credit.key === null) return true;
    const id = keyOf(credit.membershipId, credit.key);
    if (repeats.has(id) || seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  if (fresh.length === 0) return { transactions: [], repeats, events: [] };

  const input = fresh.map((credit, ord) => ({
    id: uuidv7(),
    membership_id: credit.membershipId,
    points: Math.min(credit.points, MAX_POINTS),
    reason: credit.reason,
    rule_id: credit.ruleId ?? null,
    order_id: credit.orderId ?? null,
    event_name: credit.eventName ?? null,
    source_key: credit.key,
    metadata: credit.metadata ?? {},
    ord,
  }));
  // The credits travel as one JSON parameter and only what the database decides comes back: the rows are
  // completed from the input (a thousand credits parse a third of the columns).
  const { rows: written } = await sql<
    Pick<TransactionRow, 'id' | 'customer_id' | 'balance_after' | 'expires_at' | 'metadata' | 'created_at'>
  >`${PREPARE}
    with c as (
      select * from json_to_recordset(${JSON.stringify(input)}::json) as c(id uuid, membership_id uuid, points bigint, reason text,
        rule_id uuid, order_id uuid, event_name text, source_key text, metadata jsonb, ord integer)
    ),
    totals as (select membership_id, sum(points) as total from c group by membership_id),
    moved as (
      update loyalty_memberships m set
        points_balance = m.points_balance + t.total,
        lifetime_points = least(m.lifetime_points + t.total, ${MAX_POINTS}::bigint),
        updated_at = now()
      from totals t, loyalty_programs p
      where m.organization_id = ${organizationId}::uuid and m.id = t.membership_id and m.left_at is null
        and m.points_balance + t.total <= ${MAX_POINTS}::bigint
        and p.organization_id = m.organization_id and p.id = m.loyalty_program_id
      returning m.id, m.customer_id, m.points_balance - t.total as balance_before, p.points_expiry_days as expiry_days
    ),
    written as (
    insert into loyalty_transactions (organization_id, id, loyalty_membership_id, customer_id, kind, points, balance_after,
      reason, loyalty_rule_id, order_id, event_name, source_key, expires_at, remaining, metadata, created_at)
    select ${organizationId}::uuid, c.id, c.membership_id, m.customer_id, 'earned', c.points,
      m.balance_before + sum(c.points) over (partition by c.membership_id order by c.ord),
      c.reason, c.rule_id, c.order_id, c.event_name, c.source_key,
      case when m.expiry_days is null then null else now() + m.expiry_days * interval '24 hours' end,
      c.points, c.metadata, now()
    from c join moved m on m.id = c.membership_id
    returning *
    ),
    feed as (${pointsActivityFrom(organizationId, sql`written`)})
    select id, customer_id, balance_after, expires_at, metadata, created_at from written`.execute(trx);
  const decided = new Map(written.map((row) => [row.id, row]));
  const rows: TransactionRow[] = [];
  for (const credit of input) {
    const row = decided.get(credit.id);
    if (!row) continue;
    rows.push({
      organization_id: organizationId,
      id: credit.id,
      loyalty_membership_id: credit.membership_id,
      customer_id: row.customer_id,
      kind: 'earned',
      points: credit.points,
      balance_after: row.balance_after,
      reason: credit.reason,
      loyalty_rule_id: credit.rule_id,
      loyalty_reward_id: null,
      order_id: credit.order_id,
      event_name: credit.event_name,
      source_key: credit.source_key,
      expires_at: row.expires_at,
      remaining: credit.points,
      expiring_soon_sent_at: null,
      metadata: row.metadata,
      created_at: row.created_at,
    });
  }
  const tierEvents = await recalculateTiers(
    trx,
    organizationId,
    { membershipIds: [...new Set(rows.map((row) => row.loyalty_membership_id))] },
    'upgrade',
  );
  return {
    transactions: rows,
    repeats,
    events: [...rows.map((row) => transactionEvent(organizationId, row)), ...tierEvents],
  };
}

/** The earlier credit's id when `key` had already been applied to the member. */
export const repeatOf = (credited: Credited, membershipId: string, key: string | null) =>
  key === null ? undefined : credited.repeats.get(keyOf(membershipId, key));

/* ---- expiry ---- */

export interface ExpiredPoints {
  transactions: TransactionRow[];
  events: EventToRecord[];
}

/**
 * Lapses what is left of some members' credits: the credits matching `credits` (a condition on alias `t`) are
 * zeroed, and each member gets one `expired` entry for the sum, with the balance lowered by exactly that (credits
 * hold sum(remaining) = balance, so it never goes below 0). Members who left expire too. The members are locked
 * first, in id order, as the ledger locks them, so this never deadlocks with a spend; `skipLocked` leaves members
 * busy in a request for a later batch (the overnight job) instead of waiting.
 */
export async function expireCredits(
  trx: Transaction<DB>,
  organizationId: string,
  membershipIds: readonly string[],
  credits: RawBuilder<unknown>,
  reason: string,
  options: { skipLocked?: boolean } = {},
): Promise<ExpiredPoints> {
  if (membershipIds.length === 0) return { transactions: [], events: [] };
  const locked = await lockMemberships(trx, organizationId, membershipIds, { skipLocked: options.skipLocked ?? false });
  if (locked.length === 0) return { transactions: [], events: [] };
  const { rows } = await sql<TransactionRow>`
    with due as (
      select t.id, t.loyalty_membership_id, t.remaining from loyalty_transactions t
      where t.organization_id = ${organizationId}::uuid and t.loyalty_membership_id = any(${locked}::uuid[])
        and t.remaining > 0 and (${credits})
      for update
    ),
    zeroed as (
      update loyalty_transactions t set remaining = 0 from due
      where t.organization_id = ${organizationId}::uuid and t.id = due.id
      returning due.loyalty_membership_id, due.remaining
    ),
    totals as (select loyalty_membership_id, sum(remaining) as total from zeroed group by loyalty_membership_id),
    moved as (
      update loyalty_memberships m set points_balance = m.points_balance - t.total, updated_at = now()
      from totals t
      where m.organization_id = ${organizationId}::uuid and m.id = t.loyalty_membership_id
      returning m.id, m.customer_id, m.points_balance, t.total
    ),
    written as (
      insert into loyalty_transactions (organization_id, id, loyalty_membership_id, customer_id, kind, points, balance_after, reason, created_at)
      select ${organizationId}::uuid, ${SQL_UUID_V7}, m.id, m.customer_id, 'expired', -m.total, m.points_balance, ${reason}, now()
      from moved m
      returning *
    ),
    feed as (${pointsActivityFrom(organizationId, sql`written`)})
    select * from written`.execute(trx);
  return { transactions: rows, events: rows.map((row) => transactionEvent(organizationId, row)) };
}

const BATCH = 1000;

/**
 * The overnight points expiry: every credit with expiresAt ≤ now lapses, up to `batchSize` members per short
 * transaction (with its events), so no lock is held for long. Returns the members and points expired.
 */
export async function expireDuePoints(db: Kysely<DB>, organizationId: string, now: Date, batchSize = BATCH) {
  let members = 0;
  let points = 0;
  let after: string | null = null;
  for (;;) {
    const { rows: due } = await sql<{ id: string }>`
      select distinct loyalty_membership_id as id from loyalty_transactions
      where organization_id = ${organizationId}::uuid and remaining > 0 and expires_at <= ${now}::timestamptz
        and (${after}::uuid is null or loyalty_membership_id > ${after}::uuid)
      order by 1 limit ${batchSize}`.execute(db);
    if (due.length === 0) break;
    const expired = await db.transaction().execute(async (trx) => {
      const result = await expireCredits(
        trx,
        organizationId,
        due.map((row) => row.id),
        sql`t.expires_at <= ${now}::timestamptz`,
        'Points expired',
        {
          skipLocked: true,
        },
      );
      await recordEvents(trx, result.events);
      return result.transactions;
    });
    members += expired.length;
    points += expired.reduce((sum, row) => sum - row.points, 0);
    if (due.length < batchSize) break;
    after = due[due.length - 1]!.id;
  }
  return { members, points };
}
