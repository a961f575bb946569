import Type, { type Static } from 'typebox';

export const BulkExpireBody = Type.Object(
  {
    reason: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, description: 'On each expired entry; default "Expired in bulk".' }),
    ),
  },
  { additionalProperties: false },
);
export type BulkExpireBody = Static<typeof BulkExpireBody>;

export const BulkExpireResult = Type.Object(
  {
    count: Type.Integer({ minimum: 0, description: 'Members whose points expired (one expired entry each).' }),
    points: Type.Integer({ minimum: 0, description: 'Points expired in all.' }),
  },
  { additionalProperties: false },
);
