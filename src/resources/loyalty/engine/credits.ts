import { sql, type Transaction } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { plainArrayLiteral } from '../../../db/arrays.js';
import { PREPARE } from '../../../db/prepared.js';
import type { DB, Metadata } from '../../../db/schema.js';
import type { EventToRecord } from '../../../events/outbox.js';
import { recalculateTiers } from './tiers.js';
import { transactionEvent, type TransactionRow } from '../../../records/loyalty/transaction.js';

const MAX_POINTS = Number.MAX_SAFE_INTEGER;

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
 * as every multi-member writer does: see loyalty-common/locks.ts), which is what makes the keys checked here stay
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
    )
    insert into loyalty_transactions (organization_id, id, loyalty_membership_id, customer_id, kind, points, balance_after,
      reason, loyalty_rule_id, order_id, event_name, source_key, expires_at, remaining, metadata, created_at)
    select ${organizationId}::uuid, c.id, c.membership_id, m.customer_id, 'earned', c.points,
      m.balance_before + sum(c.points) over (partition by c.membership_id order by c.ord),
      c.reason, c.rule_id, c.order_id, c.event_name, c.source_key,
      case when m.expiry_days is null then null else now() + m.expiry_days * interval '24 hours' end,
      c.points, c.metadata, now()
    from c join moved m on m.id = c.membership_id
    returning id, customer_id, balance_after, expires_at, metadata, created_at`.execute(trx);
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
