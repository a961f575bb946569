import { sql, type Transaction } from 'kysely';
import { uuidv7 } from '../../../util/ids.js';
import { plainArrayLiteral } from '../../../db/arrays.js';
import { PREPARE } from '../../../db/prepared.js';
import type { DB } from '../../../db/schema.js';
import type { EventToRecord } from '../../../core/event-to-record.js';
import type { Issued } from './rewards/issue.js';
import { issueRuleRewards } from './earning/rule-rewards.js';
import type { Rule, StampCardConfig } from './earning/rules.js';
import type { TransactionRow } from '../../../records/loyalty/transaction.js';
import { stampCardEvent, toStampCard, type StampCardRow } from '../../../records/loyalty/stamp-card.js';
import { creditPoints } from './ledger.js';
import { recordMemberActivity, type MemberActivityEntry } from './activity.js';

/** Stamps for one member's card of one rule; the member must already be locked by the caller. */
export interface StampRequest {
  membershipId: string;
  rule: Rule<StampCardConfig>;
  stamps: number;
  /** The caller's idempotency key (POST /loyalty-stamps), kept on the stampAdded entry that later finds it. */
  key?: string | null;
}

export interface Stamped {
  /** Every card stamped, per (member, rule) in request order, oldest first: the last of each is the open one. */
  cards: StampCardRow[];
  rewards: Issued[];
  transactions: TransactionRow[];
  /** stampCard.created/updated/completed per card, then the rewards' and points' events. */
  events: EventToRecord[];
}

interface Plan {
  row: StampCardRow;
  isNew: boolean;
  before: number;
  rule: Rule<StampCardConfig>;
}

/**
 * Stamps members' cards in a fixed number of statements, whatever the number of members (order imports stamp many):
 * the open cards are read (no row locks: every stamp locks the card's member first, which serializes the writers
 * of a member's cards), the stamps are laid out in memory (a full card completes and the rest start
 * the next one, as many as needed), existing cards are updated in one statement and new ones inserted in another.
 * Each completed card then issues its rule's reward (points are credited instead: rule 3), skipped when the reward
 * would be born expired (a fixedDate in the past), and remembers it.
 */
export async function stampCards(
  trx: Transaction<DB>,
  organizationId: string,
  requests: readonly StampRequest[],
  now = new Date(),
): Promise<Stamped> {
  const merged = new Map<string, StampRequest>();
  for (const request of requests) {
    if (request.stamps <= 0) continue;
    const id = `${request.membershipId}/${request.rule.id}`;
    const earlier = merged.get(id);
    merged.set(id, earlier ? { ...earlier, stamps: earlier.stamps + request.stamps } : request);
  }
  if (merged.size === 0) return { cards: [], rewards: [], transactions: [], events: [] };
  const pairs = [...merged.values()];

  // Not prepared: its generic plan (planned for a 100-row unnest) runs far slower than the custom one
  // (docs/journal/2026-11-21-earnloyalty-import-ratio.md).
  const { rows: open } = await sql<StampCardRow>`
    select c.* from stamp_cards c
    join unnest(${plainArrayLiteral(pairs.map((pair) => pair.membershipId))}::uuid[], ${plainArrayLiteral(pairs.map((pair) => pair.rule.id))}::uuid[]) as p(membership_id, rule_id)
      on c.loyalty_membership_id = p.membership_id and c.loyalty_rule_id = p.rule_id
    where c.organization_id = ${organizationId}::uuid and c.completed_at is null`.execute(trx);
  const openOf = new Map(open.map((row) => [`${row.loyalty_membership_id}/${row.loyalty_rule_id}`, row]));

  const plans: Plan[] = [];
  for (const pair of pairs) {
    let left = pair.stamps;
    let card = openOf.get(`${pair.membershipId}/${pair.rule.id}`);
    let isNew = false;
    while (left > 0) {
      if (!card) {
        card = newCard(organizationId, pair, now);
        isNew = true;
      }
      const before = card.stamps;
      const added = Math.min(left, card.stamps_required - card.stamps);
      left -= added;
      const stamps = card.stamps + added;
      plans.push({
        row: { ...card, stamps, completed_at: stamps === card.stamps_required ? now : null, updated_at: now },
        isNew,
        before,
        rule: pair.rule,
      });
      card = undefined;
    }
  }

  // A full card names its reward from the start (the reward is written after the card it references): no second
  // write of the card. A reward that is not issued after all (born expired) is unlinked in rewardCompletions.
  for (const plan of plans) {
    if (plan.row.completed_at && plan.rule.config.reward.type !== 'points') plan.row.loyalty_reward_id = uuidv7();
  }
  // Both sent at once (other rows; one connection runs them in turn); rewards reference the inserted cards, after.
  await Promise.all([
    updateCards(
      trx,
      organizationId,
      plans.filter((plan) => !plan.isNew).map((plan) => plan.row),
    ),
    insertCards(
      trx,
      organizationId,
      plans.filter((plan) => plan.isNew).map((plan) => plan.row),
    ),
  ]);
  // One stampAdded entry per stamping of a member's cards of a rule, on the card the stamps went on first; its id is
  // drawn before the completions' so the feed shows the stamps before what they completed
  // (docs/api.md#member-activity-feed).
  const cardsOf = new Map<string, Plan[]>();
  for (const plan of plans) {
    const id = `${plan.row.loyalty_membership_id}/${plan.rule.id}`;
    cardsOf.set(id, [...(cardsOf.get(id) ?? []), plan]);
  }
  const stampings: MemberActivityEntry[] = pairs.map((pair) => {
    const cards = cardsOf.get(`${pair.membershipId}/${pair.rule.id}`) ?? [];
    return {
      id: uuidv7(),
      membershipId: pair.membershipId,
      type: 'stampAdded',
      stampCardId: cards[0]?.row.id ?? null,
      data: {
        loyaltyRuleId: pair.rule.id,
        stamps: pair.stamps,
        key: pair.key ?? null,
        stampCardIds: cards.map((plan) => plan.row.id),
      },
    };
  });
  const { rewards, transactions, pointEvents } = await rewardCompletions(
    trx,
    organizationId,
    plans.filter((plan) => plan.row.completed_at),
    now,
  );

  await recordMemberActivity(
    trx,
    organizationId,
    [
      ...stampings,
      ...plans
        .filter((plan) => plan.row.completed_at)
        .map((plan): MemberActivityEntry => ({
          membershipId: plan.row.loyalty_membership_id,
          type: 'stampCardCompleted',
          stampCardId: plan.row.id,
          rewardId: plan.row.loyalty_reward_id,
          data: { loyaltyRuleId: plan.rule.id },
        })),
    ],
    now,
  );

  const events: EventToRecord[] = [];
  for (const { row, isNew, before } of plans) {
    // The card as each event saw it: started with the stamps it had, stamped, then (when full) completed.
    const card = toStampCard(row);
    const stamped = { ...card, completedAt: null, loyaltyRewardId: null };
    if (isNew) events.push(stampCardEvent(organizationId, 'stampCard.created', { ...stamped, stamps: before }));
    events.push(stampCardEvent(organizationId, 'stampCard.updated', stamped));
    if (row.completed_at) events.push(stampCardEvent(organizationId, 'stampCard.completed', card));
  }
  events.push(...rewards.flatMap((issued) => issued.events), ...pointEvents);
  return { cards: plans.map((plan) => plan.row), rewards, transactions, events };
}

const newCard = (organizationId: string, pair: StampRequest, now: Date): StampCardRow => ({
  organization_id: organizationId,
  id: uuidv7(),
  loyalty_membership_id: pair.membershipId,
  loyalty_rule_id: pair.rule.id,
  stamps: 0,
  stamps_required: pair.rule.config.stampsRequired,
  completed_at: null,
  loyalty_reward_id: null,
  created_at: now,
  updated_at: now,
});

async function updateCards(trx: Transaction<DB>, organizationId: string, rows: readonly StampCardRow[]) {
  if (rows.length === 0) return;
  await sql`${PREPARE}
    update stamp_cards c set stamps = u.stamps, completed_at = u.completed_at, loyalty_reward_id = u.reward_id, updated_at = u.updated_at
    from unnest(${plainArrayLiteral(rows.map((row) => row.id))}::uuid[], ${plainArrayLiteral(rows.map((row) => row.stamps))}::int[],
      ${rows.map((row) => row.completed_at?.toISOString() ?? null)}::timestamptz[], ${rows.map((row) => row.loyalty_reward_id)}::uuid[],
      ${rows.map((row) => row.updated_at.toISOString())}::timestamptz[])
      as u(id, stamps, completed_at, reward_id, updated_at)
    where c.organization_id = ${organizationId}::uuid and c.id = u.id`.execute(trx);
}

async function insertCards(trx: Transaction<DB>, organizationId: string, rows: readonly StampCardRow[]) {
  if (rows.length === 0) return;
  await sql`${PREPARE}
    insert into stamp_cards (organization_id, id, loyalty_membership_id, loyalty_rule_id, stamps, stamps_required, completed_at,
      loyalty_reward_id, created_at, updated_at)
    select ${organizationId}::uuid, u.id, u.membership_id, u.rule_id, u.stamps, u.stamps_required, u.completed_at, u.reward_id,
      u.created_at, u.created_at
    from unnest(${plainArrayLiteral(rows.map((row) => row.id))}::uuid[], ${plainArrayLiteral(rows.map((row) => row.loyalty_membership_id))}::uuid[],
      ${plainArrayLiteral(rows.map((row) => row.loyalty_rule_id))}::uuid[], ${plainArrayLiteral(rows.map((row) => row.stamps))}::int[], ${plainArrayLiteral(rows.map((row) => row.stamps_required))}::int[],
      ${rows.map((row) => row.completed_at?.toISOString() ?? null)}::timestamptz[], ${rows.map((row) => row.loyalty_reward_id)}::uuid[],
      ${rows.map((row) => row.created_at.toISOString())}::timestamptz[])
      as u(id, membership_id, rule_id, stamps, stamps_required, completed_at, reward_id, created_at)`.execute(trx);
}

/**
 * Issues the reward of each completed card under the id the card already names (or credits its points); a card
 * whose reward is not issued (it would be born expired) is unlinked.
 */
async function rewardCompletions(trx: Transaction<DB>, organizationId: string, completed: readonly Plan[], now: Date) {
  const rewards: Issued[] = [];
  const pointCards = completed.filter((plan) => plan.rule.config.reward.type === 'points');
  const credited = await creditPoints(
    trx,
    organizationId,
    pointCards.map((plan) => ({
      membershipId: plan.row.loyalty_membership_id,
      points: (plan.rule.config.reward as { amount: number }).amount,
      reason: `Stamp card "${plan.rule.name}" completed`,
      key: `stampCard:${plan.row.id}`,
      ruleId: plan.rule.id,
    })),
  );
  const couponCards = completed.flatMap((plan) => {
    const reward = plan.rule.config.reward;
    return reward.type === 'points' ? [] : [{ plan, reward }];
  });
  const issued = await issueRuleRewards(
    trx,
    organizationId,
    couponCards.map(({ plan, reward }) => ({
      id: plan.row.loyalty_reward_id!,
      membershipId: plan.row.loyalty_membership_id,
      rule: plan.rule,
      reward,
      stampCardId: plan.row.id,
      reason: `Stamp card "${plan.rule.name}" completed`,
    })),
    now,
  );
  const unlinked: string[] = [];
  couponCards.forEach(({ plan }, index) => {
    const reward = issued[index];
    if (reward) rewards.push(reward);
    else {
      plan.row.loyalty_reward_id = null;
      unlinked.push(plan.row.id);
    }
  });
  if (unlinked.length) {
    await sql`
      update stamp_cards set loyalty_reward_id = null
      where organization_id = ${organizationId}::uuid and id = any(${plainArrayLiteral(unlinked)}::uuid[])`.execute(
      trx,
    );
  }
  return { rewards, transactions: credited.transactions, pointEvents: credited.events };
}
