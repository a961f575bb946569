import { sql } from 'kysely';
import type { ListDefinition } from '../../lists/types.js';
import { SURVEY_STATUSES, SURVEY_TRIGGERS } from '../../records/survey.js';
import { customersOfSurveys, ordersOfSurveys } from './queries.js';

/** What GET /survey-flows can filter, sort and search (docs/api.md#surveys). */
export const surveyFlowList: ListDefinition = {
  name: 'survey flows',
  from: 'survey_flows f',
  alias: 'f',
  select: 'f.*',
  joins: {},
  relations: {},
  fields: {
    id: { type: 'uuid', column: 'f.id' },
    name: { type: 'string', column: 'f.name' },
    trigger: { type: 'enum', column: 'f.trigger', enumValues: SURVEY_TRIGGERS },
    isActive: { type: 'boolean', column: 'f.is_active' },
    emailTemplateId: { type: 'uuid', column: 'f.email_template_id' },
    metadata: { type: 'metadata', column: 'f.metadata' },
    createdAt: { type: 'timestamp', column: 'f.created_at' },
    updatedAt: { type: 'timestamp', column: 'f.updated_at' },
  },
  sorts: {
    createdAt: { column: 'f.created_at', type: 'timestamp', nullable: false },
  },
  defaultSort: '-createdAt',
  // An organization keeps a handful of flows, so the name is matched without a trigram index.
  search: (pattern) => sql`f.name ilike ${pattern}`,
  includes: {},
};

/**
 * What GET /surveys can filter, sort and include (docs/api.md#listing-and-deleting-surveys): newest first, or by when
 * their requests go out; the customer and the order with one query each for the page.
 */
export const surveyList: ListDefinition = {
  name: 'surveys',
  from: 'surveys s',
  alias: 's',
  select: 's.*',
  joins: {},
  relations: {},
  fields: {
    id: { type: 'uuid', column: 's.id' },
    surveyFlowId: { type: 'uuid', column: 's.survey_flow_id' },
    customerId: { type: 'uuid', column: 's.customer_id' },
    orderId: { type: 'uuid', column: 's.order_id' },
    status: { type: 'enum', column: 's.status', enumValues: SURVEY_STATUSES },
    scheduledFor: { type: 'timestamp', column: 's.scheduled_for' },
    sentAt: { type: 'timestamp', column: 's.sent_at' },
    answeredAt: { type: 'timestamp', column: 's.answered_at' },
    createdAt: { type: 'timestamp', column: 's.created_at' },
    updatedAt: { type: 'timestamp', column: 's.updated_at' },
  },
  sorts: {
    createdAt: { column: 's.created_at', type: 'timestamp', nullable: false },
    scheduledFor: { column: 's.scheduled_for', type: 'timestamp', nullable: false },
  },
  defaultSort: '-createdAt',
  includes: {
    customer: { load: ({ db, organizationId }, ids) => customersOfSurveys(db, organizationId, ids), empty: () => null },
    order: { load: ({ db, organizationId }, ids) => ordersOfSurveys(db, organizationId, ids), empty: () => null },
  },
};
