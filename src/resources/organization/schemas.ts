import Type, { type Static } from 'typebox';

/** The settings a PATCH may change; each is optional, an absent one keeps its stored value. */
export const OrganizationSettingsInput = Type.Object(
  {
    cascadeDeleteReviews: Type.Optional(
      Type.Boolean({
        description: 'When true, deleting a product deletes its reviews instead of unlinking and unpublishing them.',
      }),
    ),
    reviewSummaryMinReviews: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        description: 'Published reviews a product needs before it gets a summary (1..100).',
      }),
    ),
    expiringSoonDays: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 90,
        description: 'How many days ahead the expiringSoon events warn (1..90).',
      }),
    ),
  },
  { additionalProperties: false },
);

const organizationFields = {
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Display name (trimmed).' })),
  timezone: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'IANA time zone such as Europe/Berlin; scheduled jobs and analytics use it.',
    }),
  ),
  settings: Type.Optional(OrganizationSettingsInput),
  apiVersion: Type.Optional(
    Type.String({
      maxLength: 10,
      description:
        'The default API version (YYYY-MM-DD): a version the server knows, the current one or a later one; never an earlier one.',
    }),
  ),
};

/** The fields PATCH /organization sets (docs/api.md#organization-settings). The plan is the operator's (CLI). */
export const OrganizationInput = Type.Object(organizationFields, { additionalProperties: false });
export type OrganizationInput = Static<typeof OrganizationInput>;

/**
 * The PATCH body: the fields inside `data` or at the top level, not both (docs/api.md#wrapped-and-unwrapped-bodies).
 */
export const OrganizationBody = Type.Object(
  { data: Type.Optional(OrganizationInput), ...organizationFields },
  { additionalProperties: false, description: 'Send the fields inside data, or at the top level, not both.' },
);
export type OrganizationBody = Static<typeof OrganizationBody>;
