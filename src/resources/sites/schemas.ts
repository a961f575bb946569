import Type, { type Static } from 'typebox';
import { CurrencyCodeInput } from '../../records/common.js';
import { requiredOnCreate } from '../../resource-kit/body.js';

const siteInputFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  domain: Type.String({
    format: 'hostname',
    minLength: 1,
    maxLength: 253,
    description: 'A host name such as shop.example.com.',
  }),
  platform: Type.String({ minLength: 1, maxLength: 100, description: 'Default "custom".' }),
  currencyCode: CurrencyCodeInput('An ISO 4217 currency code, upper case, e.g. USD (default).'),
};

const optionalSiteFields = {
  name: Type.Optional(siteInputFields.name),
  domain: Type.Optional(siteInputFields.domain),
  platform: Type.Optional(siteInputFields.platform),
  currencyCode: Type.Optional(siteInputFields.currencyCode),
};

/** The site fields a POST or PATCH sets (named apart from the record's SiteFields, the columns it reads). */
export const SiteInput = Type.Object(optionalSiteFields, { additionalProperties: false });
export type SiteInput = Static<typeof SiteInput>;

/**
 * POST and PATCH bodies: the fields inside `data` (the reference form) or at the top level (the unwrapped form);
 * both at once is 400 (docs/api.md#wrapped-and-unwrapped-bodies).
 */
export const SiteBody = Type.Object(
  { data: Type.Optional(SiteInput), ...optionalSiteFields },
  {
    additionalProperties: false,
    description: 'Send the fields inside data, or at the top level, not both.',
  },
);
export type SiteBody = Static<typeof SiteBody>;
/** What a new site must name (platform and currency have defaults). */
export const SITE_REQUIRED = ['name', 'domain'] as const;
export const SiteCreateBody = requiredOnCreate(SiteBody, SITE_REQUIRED);
