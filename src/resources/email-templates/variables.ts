import type { EmailTemplateKind } from '../../records/email-template.js';

/**
 * The variables each kind of mail hands its template (docs/api.md#email-templates): the one table that checks a
 * template when it is saved, fills the preview's sample data and is documented in docs/api.md. A variable is a value
 * (with its sample) or an object of values (customer.firstName). Names are camelCase like the API's fields, and every
 * value is a string or a number, so a template needs no knowledge of Patron's records.
 */
export type TemplateValue = string | number;
export interface VariableSpec {
  description: string;
  /** The fields of an object variable, each with its sample; absent for a plain value. */
  fields?: Readonly<Record<string, { description: string; sample: TemplateValue }>>;
  /** The sample of a plain value. */
  sample?: TemplateValue;
}
export type VariableTable = Readonly<Record<string, VariableSpec>>;

const customer: VariableSpec = {
  description: 'The customer the mail is for.',
  fields: {
    firstName: { description: 'First name; empty when unknown.', sample: 'Ada' },
    lastName: { description: 'Last name; empty when unknown.', sample: 'Lovelace' },
    email: { description: 'The address the mail goes to.', sample: 'ada@example.com' },
  },
};
const organization: VariableSpec = {
  description: 'The organization sending the mail.',
  fields: { name: { description: "The organization's name.", sample: 'Example Store' } },
};
const reward: VariableSpec = {
  description: 'The loyalty reward.',
  fields: {
    code: { description: 'The code the customer redeems.', sample: 'RWD-7K2Q-9XPM' },
    description: { description: "What the reward gives, from its rule or the issuer's note.", sample: '10% off' },
    expiresAt: {
      description: 'When it expires (ISO 8601, UTC); empty when it never does. Format it with the date filter.',
      sample: '2026-12-31T23:59:59.000Z',
    },
  },
};

export const TEMPLATE_VARIABLES: Readonly<Record<EmailTemplateKind, VariableTable>> = {
  surveyRequest: {
    customer,
    organization,
    survey: {
      description: 'The survey the customer is asked to answer.',
      fields: {
        id: {
          description: "The survey's id, for a template that links to its own answer page.",
          sample: '0193d2a8-7c4e-7b1a-9f3e-2d5c8a1b6e40',
        },
        url: {
          description: "Where the customer answers it: https://{the order's store}/survey/{id}.",
          sample: 'https://example.com/survey/0193d2a8-7c4e-7b1a-9f3e-2d5c8a1b6e40',
        },
      },
    },
    order: {
      description: 'The order the survey asks about.',
      fields: {
        number: { description: "The order's number as the store shows it.", sample: '#1042' },
        shippedAt: {
          description: 'When it shipped (ISO 8601, UTC); empty when unknown.',
          sample: '2026-11-20T09:30:00.000Z',
        },
        deliveredAt: {
          description: 'When it was delivered (ISO 8601, UTC); empty when unknown.',
          sample: '2026-11-22T14:05:00.000Z',
        },
      },
    },
  },
  rewardIssued: { customer, organization, reward },
  rewardExpiringSoon: {
    customer,
    organization,
    reward,
    daysLeft: { description: 'Whole days until the reward expires.', sample: 7 },
  },
  pointsExpiringSoon: {
    customer,
    organization,
    points: { description: 'How many points expire.', sample: 250 },
    expiresAt: { description: 'When they expire (ISO 8601, UTC).', sample: '2026-12-31T23:59:59.000Z' },
  },
  reviewReplied: {
    customer: { ...customer, description: 'The reviewer, whom the mail is for.' },
    organization,
    review: {
      description: 'The review the merchant replied to.',
      fields: {
        id: { description: "The review's id.", sample: '0193d2a8-7c4e-7b1a-9f3e-2d5c8a1b6e41' },
        title: { description: "The review's title; empty when it has none.", sample: 'Lovely linen' },
        body: { description: "The review's text; empty when it has none.", sample: 'Soft, and it keeps its shape.' },
        rating: { description: 'The rating, 1 to 5.', sample: 5 },
        createdAt: { description: 'When it was written (ISO 8601, UTC).', sample: '2026-11-18T10:15:00.000Z' },
      },
    },
    reply: {
      description: "The merchant's reply.",
      fields: {
        body: {
          description: 'The reply as it was written.',
          sample: 'Thank you, Ada! Wash it cold and it stays soft.',
        },
        updatedAt: {
          description: 'When it was written (ISO 8601, UTC): the time of the latest text when a reply was replaced.',
          sample: '2026-11-20T08:00:00.000Z',
        },
      },
    },
    product: {
      description: 'The reviewed product; its fields are empty once the product was deleted.',
      fields: {
        title: { description: "The product's title.", sample: 'Linen Shirt' },
        url: {
          description: "The product's page in the store; empty when unknown.",
          sample: 'https://example.com/linen-shirt',
        },
      },
    },
  },
};

export type TemplateVariables = Record<string, TemplateValue | Record<string, TemplateValue>>;

/** The preview's data: each variable's sample. */
export function sampleVariables(kind: EmailTemplateKind): TemplateVariables {
  return Object.fromEntries(
    Object.entries(TEMPLATE_VARIABLES[kind]).map(([name, spec]) => [
      name,
      spec.fields
        ? Object.fromEntries(Object.entries(spec.fields).map(([field, { sample }]) => [field, sample]))
        : spec.sample!,
    ]),
  );
}
