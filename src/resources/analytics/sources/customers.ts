import type { AnalyticsSource } from '../types.js';
import { date, flag, oneOf, tagsDimension, text } from './common.js';
import { EMAIL_OPT_OUT_SOURCES } from '../../../records/customer.js';
import { customerList } from '../../customers/index.js';

export const customersSource: AnalyticsSource = {
  resource: 'customers',
  description: 'Customers. Filter: the document of GET /customers.',
  list: customerList,
  measures: {
    count: { kind: 'count', description: 'Number of customers.' },
    subscribedCount: {
      kind: 'count',
      where: 'not c.email_opt_out',
      description: 'Customers subscribed to marketing email (emailOptOut false).',
    },
    optedOutCount: {
      kind: 'count',
      where: 'c.email_opt_out',
      description: 'Customers who opted out of marketing email (emailOptOut true).',
    },
  },
  dimensions: {
    createdAt: date('c.created_at', 'When the customer was created.', false),
    updatedAt: date('c.updated_at', 'When the customer last changed.', false),
    emailOptOutAt: date('c.email_opt_out_at', 'When the customer opted out of marketing email; null while subscribed.'),
    emailOptOut: flag('c.email_opt_out', 'Whether the customer opted out of marketing email.'),
    emailOptOutSource: oneOf(
      'c.email_opt_out_source',
      EMAIL_OPT_OUT_SOURCES,
      'Who opted the customer out; null while subscribed.',
      true,
    ),
    country: text('c.country', 'Country (ISO 3166-1); null when unknown.'),
    'tags.name': tagsDimension('customer', 'c.id', 'customer'),
  },
  metadata: {
    column: 'c.metadata',
    description: "The value of one key of the customer's metadata; null where the key is absent.",
  },
};
