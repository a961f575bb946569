import { sql, type RawBuilder } from 'kysely';
import { plainArrayLiteral } from '../../../../db/arrays.js';
import { PREPARE } from '../../../../db/prepared.js';
import { pageReferences } from '../../../../resource-kit/page-references.js';
import type { LoyaltyRuleSection, RewardExpiryJson } from '../../../../db/schema.js';
import type { Executor } from '../../../../db/executor.js';
import { CUSTOMER_COLUMNS, type CustomerRow, toCustomer } from '../../../../records/customer.js';
import type { RewardRow, RewardRule } from '../../../../records/loyalty/reward.js';
import { toEmbeddedMembership, type MembershipRow } from '../../../../records/loyalty/membership.js';

export const findReward = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('loyalty_rewards')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

/** The reward, locked until the transaction ends, so two transitions of one reward run one after the other. */
export const lockReward = (trx: Executor, organizationId: string, where: { id: string } | { code: string }) =>
  trx
    .selectFrom('loyalty_rewards')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .$call((query) => ('id' in where ? query.where('id', '=', where.id) : query.where('code', '=', where.code)))
    .forUpdate()
    .executeTakeFirst();

/* ---- include=customer, membership, rule: one query each for a page ---- */

const customerOfReward = pageReferences<CustomerRow>({
  from: 'loyalty_rewards',
  column: 'customer_id',
  to: 'customers',
});
const membershipOfReward = pageReferences<MembershipRow>({
  from: 'loyalty_rewards',
  column: 'loyalty_membership_id',
  to: 'loyalty_memberships',
});
const ruleOfReward = pageReferences<RewardRule>({
  from: 'loyalty_rewards',
  column: 'loyalty_rule_id',
  to: 'loyalty_rules',
  columns: ['id', 'name', 'section'],
});

export const customersOfRewards = (db: Executor, organizationId: string, rewardIds: readonly string[]) =>
  customerOfReward(db, organizationId, rewardIds, toCustomer);

export const membershipsOfRewards = (db: Executor, organizationId: string, rewardIds: readonly string[]) =>
  membershipOfReward(db, organizationId, rewardIds, toEmbeddedMembership);

export const rulesOfRewards = (db: Executor, organizationId: string, rewardIds: readonly string[]) =>
  ruleOfReward(db, organizationId, rewardIds, (rule): RewardRule => ({
    id: rule.id,
    name: rule.name,
    section: rule.section,
  }));

/* ---- issuing ---- */

/** What issuing needs to know about the member: the membership, its customer and the program's default expiry. */
export interface Member {
  membership: MembershipRow;
  customer: CustomerRow;
  programDefaultExpiry: RewardExpiryJson;
}

/**
 * The members, by membership id, in one statement (absent ids are left out). `update` is for a caller about to
 * change the membership rows themselves (a claim spends points): locked up front, in id order, so it never has to
 * upgrade a weaker lock. Issuing alone reads them unlocked: the insert re-checks and locks the memberships itself
 * (insertIssuedRewards).
 */
export async function loadMembers(
  trx: Executor,
  organizationId: string,
  membershipIds: readonly string[],
  lock: 'update' | 'none',
): Promise<Map<string, Member>> {
  if (membershipIds.length === 0) return new Map();
  const customerColumns = sql.join(
    CUSTOMER_COLUMNS.map((column) => sql`c.${sql.ref(column)} as ${sql.ref(`c_${column}`)}`),
  );
  const locking = lock === 'update' ? sql`order by m.id for no key update of m` : sql``;
  // One member by equality: a prepared statement with `= any($n)` is planned again on every execution (its generic
  // plan is costed above the custom ones), and that planning costs more than the lookup itself
  // (docs/journal/2026-11-21-loyalty-issue-rate-import-prepared.md).
  const unique = [...new Set(membershipIds)];
  const matching =
    unique.length === 1 ? sql`m.id = ${unique[0]}::uuid` : sql`m.id = any(${plainArrayLiteral(unique)}::uuid[])`;
  const { rows } = await sql<
    MembershipRow & { program_default_expiry: RewardExpiryJson } & Record<
        `c_${(typeof CUSTOMER_COLUMNS)[number]}`,
        unknown
      >
  >`${PREPARE}
    select m.*, p.default_reward_expiry as program_default_expiry, ${customerColumns}
    from loyalty_memberships m
    join customers c on c.organization_id = m.organization_id and c.id = m.customer_id
    join loyalty_programs p on p.organization_id = m.organization_id and p.id = m.loyalty_program_id
    where m.organization_id = ${organizationId}::uuid and ${matching}
    ${locking}`.execute(trx);
  const members = new Map<string, Member>();
  for (const row of rows) {
    const customer = Object.fromEntries(
      CUSTOMER_COLUMNS.map((column) => [column, row[`c_${column}`]]),
    ) as unknown as CustomerRow;
    const membership = Object.fromEntries(
      Object.entries(row).filter(([key]) => !key.startsWith('c_') && key !== 'program_default_expiry'),
    ) as unknown as MembershipRow;
    members.set(membership.id, {
      membership,
      customer: { ...customer, organization_id: organizationId },
      programDefaultExpiry: row.program_default_expiry,
    });
  }
  return members;
}

export const loadMember = async (
  trx: Executor,
  organizationId: string,
  membershipId: string,
  lock: 'update' | 'none',
): Promise<Member | undefined> => (await loadMembers(trx, organizationId, [membershipId], lock)).get(membershipId);

/** The issued reward's activity entry (its membership, customer, reason and transaction are the reward's). */
export interface IssuedActivity {
  id: string;
  data: Record<string, unknown>;
}

/** A reward to write, as `row` has it (column defaults included), with its activity entry. */
export interface RewardWrite {
  row: RewardRow;
  activity: IssuedActivity;
}

export interface IssueWritten {
  /** Ids of the rewards written; a write missing here was refused for its member or its code (see members). */
  issued: Set<string>;
  /** Each named membership that exists: true while it stands, false once left; a deleted one is absent. */
  members: Map<string, boolean>;
}

const rewardWritesJson = (writes: readonly RewardWrite[]) =>
  JSON.stringify(
    writes.map(({ row, activity }) => ({
      id: row.id,
      loyalty_membership_id: row.loyalty_membership_id,
      customer_id: row.customer_id,
      loyalty_rule_id: row.loyalty_rule_id,
      stamp_card_id: row.stamp_card_id,
      loyalty_transaction_id: row.loyalty_transaction_id,
      reward: row.reward,
      status: row.status,
      code: row.code,
      expires_at: row.expires_at,
      metadata: row.metadata,
      fulfillment: row.fulfillment,
      rule_snapshot: row.rule_snapshot,
      reason: row.reason,
      created_at: row.created_at,
      updated_at: row.updated_at,
      activity_id: activity.id,
      activity_data: activity.data,
    })),
  );

/**
 * Writes new rewards with their activity entries (and, given, the single reward's events) in one statement, so a
 * caller without other changes needs no explicit transaction. The statement re-checks the memberships under a share
 * lock (in id order): a reward whose member has left since the caller read it, or been deleted meanwhile, is not
 * written (the lock waits for a deleting transaction, then finds the row gone, where a bare foreign key check would
 * fail the whole insert). Once locked, the memberships can be neither left nor deleted before the rewards commit.
 * A reward whose code is already used in the organization is not written either (draw another code).
 */
export async function insertIssuedRewards(
  db: Executor,
  organizationId: string,
  writes: readonly RewardWrite[],
  events?: RawBuilder<number>,
): Promise<IssueWritten> {
  if (writes.length === 0) return { issued: new Set(), members: new Map() };
  if (events && writes.length !== 1)
    throw new Error('insertIssuedRewards: events can only ride along with a single reward');
  const { rows } = await sql<{ issued: string[]; members: Record<string, boolean> }>`${PREPARE}
    with input as (
      select * from json_to_recordset(${rewardWritesJson(writes)}::json) as i(id uuid, loyalty_membership_id uuid, customer_id uuid,
        loyalty_rule_id uuid, stamp_card_id uuid, loyalty_transaction_id uuid, reward jsonb, status text, code text, expires_at timestamptz,
        metadata jsonb, fulfillment jsonb, rule_snapshot jsonb, reason text, created_at timestamptz, updated_at timestamptz,
        activity_id uuid, activity_data jsonb)
    ),
    member as (
      select id, left_at is null as active from loyalty_memberships
      where organization_id = ${organizationId}::uuid and id in (select loyalty_membership_id from input)
      order by id
      for share
    ),
    reward as (
      insert into loyalty_rewards (organization_id, id, loyalty_membership_id, customer_id, loyalty_rule_id, stamp_card_id,
        loyalty_transaction_id, reward, status, code, expires_at, metadata, fulfillment, rule_snapshot, reason, created_at, updated_at)
      select ${organizationId}::uuid, i.id, i.loyalty_membership_id, i.customer_id, i.loyalty_rule_id, i.stamp_card_id,
        i.loyalty_transaction_id, i.reward, i.status, i.code, i.expires_at, i.metadata, i.fulfillment, i.rule_snapshot, i.reason,
        i.created_at, i.updated_at
      from input i join member m on m.id = i.loyalty_membership_id and m.active
      on conflict (organization_id, code) do nothing
      returning id
    ),
    activity as (
      insert into loyalty_activity (organization_id, id, loyalty_membership_id, customer_id, type, reason, loyalty_reward_id,
        loyalty_transaction_id, data, created_at)
      select ${organizationId}::uuid, i.activity_id, i.loyalty_membership_id, i.customer_id, 'rewardIssued', i.reason, i.id,
        i.loyalty_transaction_id, i.activity_data, i.created_at
      from input i join reward r on r.id = i.id
    )
    select coalesce((select json_agg(id) from reward), '[]') as issued,
      coalesce((select json_object_agg(id, active) from member), '{}') as members
      ${events ? sql`, (select ${events} from reward) as deliveries` : sql``}`.execute(db);
  const outcome = rows[0]!;
  return { issued: new Set(outcome.issued), members: new Map(Object.entries(outcome.members)) };
}

/* ---- transitions ---- */

export interface Transition {
  status: 'redeemed' | 'revoked' | 'expired';
  at: Date;
  fulfillment: Record<string, unknown> | null;
  orderId?: string | null | undefined;
}

/** Moves one locked pending reward to its new status. */
export async function transitionReward(
  trx: Executor,
  organizationId: string,
  id: string,
  change: Transition,
): Promise<RewardRow> {
  const { rows } = await sql<RewardRow>`
    update loyalty_rewards set
      status = ${change.status},
      redeemed_at = ${change.status === 'redeemed' ? change.at : null}::timestamptz,
      revoked_at = ${change.status === 'revoked' ? change.at : null}::timestamptz,
      order_id = coalesce(${change.orderId ?? null}::uuid, order_id),
      fulfillment = ${change.fulfillment === null ? null : JSON.stringify(change.fulfillment)}::jsonb,
      updated_at = ${change.at}::timestamptz
    where organization_id = ${organizationId}::uuid and id = ${id}::uuid and status = 'pending'
    returning *`.execute(trx);
  if (!rows[0]) throw new Error(`transitionReward: reward ${id} is not pending inside its own lock`);
  return rows[0];
}

/**
 * Up to `limit` pending rewards due by `now`, locked; rows another transaction holds (a redeem in flight) are
 * skipped rather than waited for, so the sweep never stalls API traffic and picks them up next time if still due.
 */
export const lockDueRewards = (trx: Executor, organizationId: string, now: Date, limit: number) =>
  sql<RewardRow>`
    select * from loyalty_rewards
    where organization_id = ${organizationId}::uuid and status = 'pending' and expires_at is not null and expires_at <= ${now}::timestamptz
    order by expires_at, id
    limit ${limit}
    for update skip locked`
    .execute(trx)
    .then((result) => result.rows);

/** Expires the given locked rewards with their new fulfillment, in one statement. */
export async function expireRewards(
  trx: Executor,
  organizationId: string,
  changes: readonly { id: string; fulfillment: Record<string, unknown> | null }[],
  at: Date,
): Promise<RewardRow[]> {
  if (changes.length === 0) return [];
  const { rows } = await sql<RewardRow>`
    update loyalty_rewards r set status = 'expired', fulfillment = u.fulfillment, updated_at = ${at}::timestamptz
    from unnest(${changes.map((c) => c.id)}::uuid[], ${changes.map((c) => (c.fulfillment === null ? null : JSON.stringify(c.fulfillment)))}::jsonb[])
      as u(id, fulfillment)
    where r.organization_id = ${organizationId}::uuid and r.id = u.id and r.status = 'pending'
    returning r.*`.execute(trx);
  return rows;
}

/* ---- references ---- */

export const orderExists = async (db: Executor, organizationId: string, orderId: string) =>
  Boolean(
    await db
      .selectFrom('orders')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', '=', orderId)
      .executeTakeFirst(),
  );

export interface RuleRow {
  id: string;
  loyalty_program_id: string;
  section: LoyaltyRuleSection;
  name: string;
  config: Record<string, unknown>;
  is_active: boolean;
  deleted_at: Date | null;
}

export const findRule = (db: Executor, organizationId: string, id: string): Promise<RuleRow | undefined> =>
  db
    .selectFrom('loyalty_rules')
    .select(['id', 'loyalty_program_id', 'section', 'name', 'config', 'is_active', 'deleted_at'])
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

/** The rule of each reward that has one, by id, for events and responses built inside a transaction. */
export async function rulesById(
  db: Executor,
  organizationId: string,
  ids: readonly string[],
): Promise<Map<string, RewardRule>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('loyalty_rules')
    .select(['id', 'name', 'section'])
    .where('organization_id', '=', organizationId)
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}
