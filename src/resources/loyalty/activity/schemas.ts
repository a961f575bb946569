import Type, { type Static } from 'typebox';
import { dataBody } from '../body.js';

export const PointsAdjustmentBody = dataBody(
  {
    points: Type.Integer({
      minimum: -Number.MAX_SAFE_INTEGER,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Signed, never 0: positive adds, negative removes (a balance never goes below 0: 409).',
    }),
    reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why; kept on the ledger entry.' }),
  },
  'points and reason required. Send the fields inside data, or at the top level, not both.',
);
export type PointsAdjustmentBody = Static<typeof PointsAdjustmentBody>;
export type PointsAdjustmentFields = NonNullable<PointsAdjustmentBody['data']>;
