import Type, { type Static } from 'typebox';
import { Timestamp, Uuid } from '../../records/common.js';

/** A site (D28): a store the organization's data comes from. */
export const Site = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    domain: Type.String({
      description: 'Host name of the store, as given; unique per organization (case-insensitive).',
    }),
    platform: Type.String({ description: 'Store platform, e.g. custom.' }),
    currencyCode: Type.String({ description: 'ISO 4217 code.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Site', additionalProperties: false },
);
export type Site = Static<typeof Site>;

const siteInputFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  domain: Type.String({
    format: 'hostname',
    minLength: 1,
    maxLength: 253,
    description: 'A host name such as shop.example.com.',
  }),
  platform: Type.String({ minLength: 1, maxLength: 100, description: 'Default "custom".' }),
  currencyCode: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217, e.g. USD (default).' }),
};

const optionalSiteFields = {
  name: Type.Optional(siteInputFields.name),
  domain: Type.Optional(siteInputFields.domain),
  platform: Type.Optional(siteInputFields.platform),
  currencyCode: Type.Optional(siteInputFields.currencyCode),
};

export const SiteFields = Type.Object(optionalSiteFields, { additionalProperties: false });
export type SiteFields = Static<typeof SiteFields>;

/**
 * POST and PATCH bodies: the fields inside `data` (the reference form) or at the top level (D22's unwrapped form);
 * both at once is 400.
 */
export const SiteBody = Type.Object(
  { data: Type.Optional(SiteFields), ...optionalSiteFields },
  {
    additionalProperties: false,
    description: 'Send the fields inside data, or at the top level, not both.',
  },
);
export type SiteBody = Static<typeof SiteBody>;
