import Type, { type Static } from 'typebox';

export const Organization = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    timezone: Type.String({ description: 'IANA time zone; analytics and overnight jobs use it by default.' }),
    plan: Type.Object({
      apiRequestsPerMinute: Type.Integer({
        description: 'Ceiling of the organization-wide token bucket; it refills at this value / 60 per second.',
      }),
      loyaltyEventsPerMinute: Type.Integer({ description: 'Ceiling of the POST /loyalty-events bucket.' }),
      loyaltyStampsPerMinute: Type.Integer({ description: 'Ceiling of the POST /loyalty-stamps bucket.' }),
    }),
    settings: Type.Object({
      cascadeDeleteReviews: Type.Boolean({
        description: 'When true, deleting a product deletes its reviews instead of unlinking and unpublishing them.',
      }),
      reviewSummaryMinReviews: Type.Integer({
        description: 'Published reviews a product needs before it gets a summary.',
      }),
      expiringSoonDays: Type.Integer({ description: 'How many days ahead the expiringSoon events warn.' }),
    }),
  },
  { $id: 'Organization', additionalProperties: false },
);
export type Organization = Static<typeof Organization>;
