import Type, { type Static } from 'typebox';
import { Timestamp, Uuid } from '../common.js';

/** loyaltyPoints.expiringSoon: a member's credits that start to lapse within the organization's expiringSoonDays. */
export const LoyaltyPointsExpiringSoon = Type.Object(
  {
    loyaltyMembershipId: Uuid,
    customerId: Uuid,
    points: Type.Integer({ minimum: 1, description: 'What is left of the credits below, in all.' }),
    expiresAt: Timestamp,
    pointsBalance: Type.Integer({ minimum: 0 }),
    credits: Type.Array(
      Type.Object(
        { loyaltyTransactionId: Uuid, points: Type.Integer({ minimum: 1 }), expiresAt: Timestamp },
        { additionalProperties: false },
      ),
      { description: 'Each credit is announced once; expiresAt above is the earliest of them.' },
    ),
  },
  { $id: 'LoyaltyPointsExpiringSoon', additionalProperties: false },
);
export type LoyaltyPointsExpiringSoon = Static<typeof LoyaltyPointsExpiringSoon>;
