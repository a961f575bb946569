import { TRANSACTION_KINDS } from '../../../records/loyalty/transaction.js';
import { REWARD_STATUSES } from '../../../records/loyalty/reward.js';
import type { AnalyticsSource } from '../types.js';
import { customerCountry, date, flag, oneOf, text, uuid } from './common.js';
import { activityList, membershipList, rewardList } from '../../loyalty/index.js';

export const loyaltyMembersSource: AnalyticsSource = {
  resource: 'loyalty-members',
  description: 'Loyalty memberships. Filter: the document of GET /loyalty-memberships.',
  list: membershipList,
  measures: {
    count: { kind: 'count', description: 'Number of memberships, including members who left.' },
    activeCount: { kind: 'count', where: 'm.left_at is null', description: 'Memberships still active (leftAt null).' },
  },
  dimensions: {
    createdAt: date('m.created_at', 'When the customer joined.', false),
    updatedAt: date('m.updated_at', 'When the membership last changed.', false),
    tierAttainedAt: date('m.tier_attained_at', 'When the member reached the current tier; null without a tier.'),
    tierReviewAt: date('m.tier_review_at', 'Next downgrade review of a rolling tier; null when none is due.'),
    leftAt: date('m.left_at', 'When the member left; null while active.'),
    tierAssignedManually: flag('m.tier_assigned_manually', 'Whether an admin pinned the tier.'),
    loyaltyProgramId: uuid('m.loyalty_program_id', 'The loyalty program.', false),
    loyaltyTierId: uuid('m.loyalty_tier_id', 'The current tier; null without one.'),
    'customer.id': uuid('m.customer_id', 'The member (customer).', false),
    'customer.country': customerCountry('membership'),
  },
};

export const loyaltyActivitySource: AnalyticsSource = {
  resource: 'loyalty-activity',
  description: 'The points ledger (loyalty transactions). Filter: the document of GET /loyalty-activity.',
  list: activityList,
  measures: {
    count: { kind: 'count', description: 'Number of ledger entries (earned, spent, adjusted and expired).' },
    pointsEarned: {
      kind: 'sum',
      value: 't.points',
      where: `t.kind = 'earned'`,
      description: 'Points credited by earning (entries of kind earned); adjustments and expiry are not earning.',
    },
    pointsSpent: {
      kind: 'sum',
      value: '-t.points',
      where: `t.kind = 'spent'`,
      description: 'Points spent on rewards (entries of kind spent), as a positive number.',
    },
  },
  dimensions: {
    createdAt: date('t.created_at', 'When the entry was written.', false),
    expiresAt: date('t.expires_at', 'When a credit expires; null for debits and credits that never expire.'),
    kind: oneOf('t.kind', TRANSACTION_KINDS, 'earned, spent, adjusted or expired.'),
    eventName: text('t.event_name', 'The loyalty event that earned the points; null for other entries.'),
    loyaltyRuleId: uuid('t.loyalty_rule_id', 'The rule that earned or charged the points; null when none did.'),
    loyaltyMembershipId: uuid('t.loyalty_membership_id', 'The membership whose balance moved.', false),
    'customer.id': uuid('t.customer_id', 'The member (customer).', false),
    'customer.country': customerCountry('entry'),
  },
  metadata: {
    column: 't.metadata',
    description: "The value of one key of the entry's metadata; null where the key is absent.",
  },
};

export const REWARD_TYPES = ['points', 'amountCoupon', 'percentageCoupon', 'freeShipping', 'giftCard'] as const;
export const FULFILLMENT_STATUSES = ['pending', 'active', 'deactivated', 'failed'] as const;
export const FULFILLMENT_MODES = ['platform', 'manual'] as const;

export const loyaltyRewardsSource: AnalyticsSource = {
  resource: 'loyalty-rewards',
  description: 'Loyalty rewards. Filter: the document of GET /loyalty-rewards.',
  list: rewardList,
  measures: {
    count: { kind: 'count', description: 'Number of rewards issued.' },
    redeemedCount: {
      kind: 'count',
      where: `r.status = 'redeemed'`,
      description: 'Rewards redeemed (status redeemed).',
    },
  },
  dimensions: {
    createdAt: date('r.created_at', 'When the reward was issued.', false),
    updatedAt: date('r.updated_at', 'When the reward last changed.', false),
    redeemedAt: date('r.redeemed_at', 'When the code was used; null while unused.'),
    expiresAt: date('r.expires_at', 'When the reward stops being redeemable; null for never.'),
    revokedAt: date('r.revoked_at', 'When the reward was withdrawn; null unless it was.'),
    status: oneOf('r.status', REWARD_STATUSES, 'pending, redeemed, expired or revoked.'),
    'reward.type': oneOf(`r.reward ->> 'type'`, REWARD_TYPES, 'What the member gets: the type of the reward object.'),
    'fulfillment.mode': oneOf(
      `r.fulfillment ->> 'mode'`,
      FULFILLMENT_MODES,
      'How the code is honored: a store discount (platform) or by hand (manual); null before fulfillment.',
      true,
    ),
    'fulfillment.status': oneOf(
      `r.fulfillment ->> 'status'`,
      FULFILLMENT_STATUSES,
      'How far store fulfillment got; null before fulfillment.',
      true,
    ),
    loyaltyRuleId: uuid('r.loyalty_rule_id', 'The rule that issued it; null when issued by hand.'),
    loyaltyMembershipId: uuid('r.loyalty_membership_id', 'The membership the reward belongs to.', false),
    'customer.id': uuid('r.customer_id', 'The member (customer).', false),
    'customer.country': customerCountry('reward'),
  },
  metadata: {
    column: 'r.metadata',
    description: "The value of one key of the reward's metadata; null where the key is absent.",
  },
};
