/** The referral record: its response shape, the columns it is read from, the row→record mapping, its event. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { ReferralsTable } from '../../db/schema.js';
import type { EventToRecord } from '../../core/event-to-record.js';
import { NullableTimestamp, Timestamp, Uuid } from '../common.js';

const NullableUuid = Type.Union([Uuid, Type.Null()]);

/** A referral (the referrals table): created when a member joins with a code, attributed at their first earning order. */
export const Referral = Type.Object(
  {
    id: Uuid,
    referrerMembershipId: Uuid,
    referredMembershipId: NullableUuid,
    referredCustomerId: NullableUuid,
    status: Type.Union([Type.Literal('pending'), Type.Literal('attributed')]),
    orderId: Type.Union([Uuid, Type.Null()], {
      description: "The referred member's first earning order, once attributed.",
    }),
    attributedAt: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Referral', additionalProperties: false },
);
export type Referral = Static<typeof Referral>;

export type ReferralRow = Selectable<ReferralsTable>;

/** The columns toReferral reads. */
export const REFERRAL_COLUMNS = [
  'id',
  'referrer_membership_id',
  'referred_membership_id',
  'referred_customer_id',
  'status',
  'order_id',
  'attributed_at',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof ReferralRow)[];
export type ReferralFields = Pick<ReferralRow, (typeof REFERRAL_COLUMNS)[number]>;

export const toReferral = (row: ReferralFields): Referral => ({
  id: row.id,
  referrerMembershipId: row.referrer_membership_id,
  referredMembershipId: row.referred_membership_id,
  referredCustomerId: row.referred_customer_id,
  status: row.status,
  orderId: row.order_id,
  attributedAt: row.attributed_at?.toISOString() ?? null,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export const referralEvent = (organizationId: string, row: ReferralFields): EventToRecord => ({
  organizationId,
  name: 'referral.updated',
  schema: Referral,
  record: toReferral(row),
});
