import { sql } from 'kysely';
import { columnList, type Executor } from '../../db/executor.js';
import type { Metadata, SurveyAnswer, SurveyQuestion, SurveyTrigger } from '../../db/schema.js';
import { CUSTOMER_COLUMNS, toCustomer, type CustomerFields } from '../../records/customer.js';
import { ORDER_COLUMNS, toOrder, type OrderFields } from '../../records/order.js';
import { SURVEY_COLUMNS, SURVEY_FLOW_COLUMNS } from '../../records/survey.js';
import { updateIfChanged } from '../../resource-kit/changes.js';

export const findSurveyFlow = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('survey_flows')
    .select(SURVEY_FLOW_COLUMNS)
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

export const lockSurveyFlow = (trx: Executor, organizationId: string, id: string) =>
  trx
    .selectFrom('survey_flows')
    .select(SURVEY_FLOW_COLUMNS)
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();

/** The kind of the organization's template with this id; undefined when it has none. */
export const templateKind = async (db: Executor, organizationId: string, id: string) =>
  (
    await db
      .selectFrom('email_templates')
      .select('kind')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst()
  )?.kind;

export interface FlowValues {
  name: string;
  trigger: SurveyTrigger;
  delayDays: number;
  emailTemplateId: string;
  questions: SurveyQuestion[];
  isActive: boolean;
  metadata: Metadata;
}

export const insertSurveyFlow = (trx: Executor, organizationId: string, id: string, values: FlowValues) =>
  trx
    .insertInto('survey_flows')
    .values({
      organization_id: organizationId,
      id,
      name: values.name,
      trigger: values.trigger,
      delay_days: values.delayDays,
      email_template_id: values.emailTemplateId,
      questions: JSON.stringify(values.questions),
      is_active: values.isActive,
      metadata: JSON.stringify(values.metadata),
    })
    .returning(SURVEY_FLOW_COLUMNS)
    .executeTakeFirstOrThrow();

/** The fields sent; undefined when they are the stored ones (docs/api.md#writes-that-change-nothing). */
export const updateSurveyFlow = (trx: Executor, organizationId: string, id: string, changes: Partial<FlowValues>) =>
  updateIfChanged(
    trx,
    { table: 'survey_flows', organizationId, id },
    {
      name: changes.name,
      trigger: changes.trigger,
      delay_days: changes.delayDays,
      email_template_id: changes.emailTemplateId,
      // jsonb compares by content, so an unchanged list writes nothing; an array is passed as JSON text.
      questions: changes.questions && sql`${JSON.stringify(changes.questions)}::jsonb`,
      is_active: changes.isActive,
      metadata: changes.metadata,
    },
  );

export const deleteSurveyFlowRow = (trx: Executor, organizationId: string, id: string) =>
  trx
    .deleteFrom('survey_flows')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returning(SURVEY_FLOW_COLUMNS)
    .executeTakeFirst();

export const findSurvey = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('surveys')
    .select(SURVEY_COLUMNS)
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

/** The survey, locked, with the questions of its flow. */
export const lockSurveyWithQuestions = (trx: Executor, organizationId: string, id: string) =>
  trx
    .selectFrom('surveys as s')
    .innerJoin('survey_flows as f', (join) =>
      join.onRef('f.organization_id', '=', 's.organization_id').onRef('f.id', '=', 's.survey_flow_id'),
    )
    .select(SURVEY_COLUMNS.map((column) => `s.${column}` as const))
    .select('f.questions')
    .where('s.organization_id', '=', organizationId)
    .where('s.id', '=', id)
    .forUpdate('s')
    .executeTakeFirst();

/** The survey answered; `mailWithdrawn` clears its mailId, whose request left the outbox unsent. */
export const recordAnswers = (
  trx: Executor,
  organizationId: string,
  id: string,
  { answers, mailWithdrawn }: { answers: SurveyAnswer[]; mailWithdrawn: boolean },
) =>
  trx
    .updateTable('surveys')
    .set({
      status: 'answered',
      answers: JSON.stringify(answers),
      answered_at: sql`now()`,
      updated_at: sql`now()`,
      ...(mailWithdrawn ? { mail_id: null } : {}),
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returning(SURVEY_COLUMNS)
    .executeTakeFirstOrThrow();

/** Deletes surveys by a condition (their ids, a flow's, some orders'), answering the deleted rows. */
export const deleteSurveysWhere = async (
  trx: Executor,
  organizationId: string,
  by: { ids: readonly string[] } | { flowId: string } | { orderIds: readonly string[] },
) => {
  let query = trx.deleteFrom('surveys').where('organization_id', '=', organizationId);
  if ('ids' in by) query = query.where('id', 'in', by.ids);
  else if ('flowId' in by) query = query.where('survey_flow_id', '=', by.flowId);
  else query = query.where('order_id', 'in', by.orderIds);
  // In id order, so their events go out in the order the surveys were made.
  return (await query.returning(SURVEY_COLUMNS).execute()).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
};

/** The organization's active flows of the given triggers, with their templates (docs/api.md#when-a-survey-is-scheduled). */
export const activeFlows = (trx: Executor, organizationId: string, triggers: readonly SurveyTrigger[]) =>
  trx
    .selectFrom('survey_flows as f')
    .innerJoin('email_templates as t', (join) =>
      join.onRef('t.organization_id', '=', 'f.organization_id').onRef('t.id', '=', 'f.email_template_id'),
    )
    .select(['f.id', 'f.trigger', 'f.delay_days', 't.subject', 't.html', 't.text'])
    .where('f.organization_id', '=', organizationId)
    .where('f.is_active', '=', true)
    .where('f.trigger', 'in', triggers)
    .orderBy('f.id')
    .execute();

export const hasActiveFlow = async (trx: Executor, organizationId: string) =>
  (await trx
    .selectFrom('survey_flows')
    .select(sql`1`.as('one'))
    .where('organization_id', '=', organizationId)
    .where('is_active', '=', true)
    .limit(1)
    .executeTakeFirst()) !== undefined;

/** What a survey request says about its orders: the customer, the order, the store's host and the organization. */
export const ordersForSurveys = (trx: Executor, organizationId: string, orderIds: readonly string[]) =>
  trx
    .selectFrom('orders as o')
    .innerJoin('customers as c', (join) =>
      join.onRef('c.organization_id', '=', 'o.organization_id').onRef('c.id', '=', 'o.customer_id'),
    )
    .innerJoin('sites as s', (join) =>
      join.onRef('s.organization_id', '=', 'o.organization_id').onRef('s.id', '=', 'o.site_id'),
    )
    .innerJoin('organizations as org', 'org.id', 'o.organization_id')
    .select([
      'o.id',
      'o.number',
      'o.shipped_at',
      'o.delivered_at',
      'o.customer_id',
      'c.email',
      'c.first_name',
      'c.last_name',
      's.domain',
      'org.name as organization_name',
    ])
    .where('o.organization_id', '=', organizationId)
    .where('o.id', 'in', orderIds)
    .execute();

export interface NewSurvey {
  id: string;
  surveyFlowId: string;
  customerId: string;
  orderId: string;
  scheduledFor: Date;
  mailId: string;
}

/**
 * Inserts the surveys not scheduled yet: one per order and flow, whoever else is inserting the same pair (the unique
 * key decides, so a concurrent import of the same order waits for this one and then inserts nothing). Answers the
 * surveys this statement inserted.
 */
export const insertNewSurveys = async (trx: Executor, organizationId: string, surveys: readonly NewSurvey[]) => {
  if (surveys.length === 0) return [];
  return trx
    .insertInto('surveys')
    .values(
      surveys.map((survey) => ({
        organization_id: organizationId,
        id: survey.id,
        survey_flow_id: survey.surveyFlowId,
        customer_id: survey.customerId,
        order_id: survey.orderId,
        scheduled_for: survey.scheduledFor,
        mail_id: survey.mailId,
      })),
    )
    .onConflict((conflict) => conflict.columns(['organization_id', 'order_id', 'survey_flow_id']).doNothing())
    .returning(['id', 'mail_id'])
    .execute();
};

/** A survey whose request could not be written (its template fails to render) fails at once, with no mail. */
export const failSurveys = async (trx: Executor, organizationId: string, ids: readonly string[]) => {
  if (ids.length === 0) return;
  await trx
    .updateTable('surveys')
    .set({ status: 'failed', mail_id: null, updated_at: sql`now()` })
    .where('organization_id', '=', organizationId)
    .where('id', 'in', ids)
    .execute();
};

/** include=customer: each survey's customer, one query for the page. */
export async function customersOfSurveys(db: Executor, organizationId: string, surveyIds: readonly string[]) {
  const { rows } = await sql<CustomerFields & { survey_id: string }>`
    select ${columnList(CUSTOMER_COLUMNS, 'c')}, s.id as survey_id from surveys s
    join customers c on c.organization_id = s.organization_id and c.id = s.customer_id
    where s.organization_id = ${organizationId}::uuid and s.id = any(${[...surveyIds]}::uuid[])`.execute(db);
  return new Map<string, unknown>(rows.map(({ survey_id, ...customer }) => [survey_id, toCustomer(customer)]));
}

/** include=order: each survey's order, one query for the page. */
export async function ordersOfSurveys(db: Executor, organizationId: string, surveyIds: readonly string[]) {
  const { rows } = await sql<OrderFields & { survey_id: string }>`
    select ${columnList(ORDER_COLUMNS, 'o')}, s.id as survey_id from surveys s
    join orders o on o.organization_id = s.organization_id and o.id = s.order_id
    where s.organization_id = ${organizationId}::uuid and s.id = any(${[...surveyIds]}::uuid[])`.execute(db);
  return new Map<string, unknown>(rows.map(({ survey_id, ...order }) => [survey_id, toOrder(order)]));
}
