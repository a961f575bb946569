/** The stamp card record: its response shape, the columns it is read from, the row→record mapping, its events. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { StampCardsTable } from '../../db/schema.js';
import type { EventToRecord } from '../../core/event-to-record.js';
import { NullableTimestamp, Timestamp, Uuid } from '../common.js';

/** A member's card of one stampCards rule. */
export const StampCard = Type.Object(
  {
    id: Uuid,
    loyaltyMembershipId: Uuid,
    loyaltyRuleId: Uuid,
    stamps: Type.Integer({ minimum: 0 }),
    stampsRequired: Type.Integer({ minimum: 1, description: 'As the rule said when the card was started.' }),
    completedAt: NullableTimestamp,
    loyaltyRewardId: Type.Union([Uuid, Type.Null()], { description: 'The reward the full card issued.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'StampCard', additionalProperties: false },
);
export type StampCard = Static<typeof StampCard>;

export type StampCardRow = Selectable<StampCardsTable>;

/** The columns toStampCard reads. */
export const STAMP_CARD_COLUMNS = [
  'id',
  'loyalty_membership_id',
  'loyalty_rule_id',
  'stamps',
  'stamps_required',
  'completed_at',
  'loyalty_reward_id',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof StampCardRow)[];
export type StampCardFields = Pick<StampCardRow, (typeof STAMP_CARD_COLUMNS)[number]>;

export const toStampCard = (row: StampCardFields): StampCard => ({
  id: row.id,
  loyaltyMembershipId: row.loyalty_membership_id,
  loyaltyRuleId: row.loyalty_rule_id,
  stamps: row.stamps,
  stampsRequired: row.stamps_required,
  completedAt: row.completed_at?.toISOString() ?? null,
  loyaltyRewardId: row.loyalty_reward_id,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export const stampCardEvent = (organizationId: string, name: string, record: StampCard): EventToRecord => ({
  organizationId,
  name,
  schema: StampCard,
  record,
});
