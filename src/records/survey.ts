/**
 * Survey flows and surveys (docs/api.md#surveys): their response shapes, the columns they are read from, the
 * row→record mappings and their events.
 */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { SurveyAnswer, SurveyFlowsTable, SurveyQuestion as StoredQuestion, SurveysTable } from '../db/schema.js';
import type { EventToRecord } from '../core/event-to-record.js';
import { Metadata, NullableTimestamp, Timestamp, Uuid } from './common.js';
import { EmbeddedCustomer } from './customer.js';
import { EmbeddedOrder } from './order.js';

export const SURVEY_TRIGGERS = ['orderShipped', 'orderDelivered'] as const;
export const SURVEY_QUESTION_KINDS = ['rating', 'choice', 'text'] as const;
export const SURVEY_STATUSES = ['scheduled', 'sent', 'suppressed', 'failed', 'answered'] as const;

/** Enums, not unions of literals: generators read each as one string type, and a wrong value names every value. */
export const SurveyTriggerValue = Type.Unsafe<(typeof SURVEY_TRIGGERS)[number]>({
  type: 'string',
  enum: [...SURVEY_TRIGGERS],
  description:
    'orderShipped: the order gains its shippedAt; orderDelivered: the order gains its deliveredAt. The survey is scheduled delayDays after that date.',
});
export const SurveyQuestionKindValue = Type.Unsafe<(typeof SURVEY_QUESTION_KINDS)[number]>({
  type: 'string',
  enum: [...SURVEY_QUESTION_KINDS],
  description: 'rating: answered with a step from 1 to 5; choice: one of its choices; text: free text.',
});
export const SurveyStatusValue = Type.Unsafe<(typeof SURVEY_STATUSES)[number]>({
  type: 'string',
  enum: [...SURVEY_STATUSES],
  description:
    'scheduled (its request waits for scheduledFor), sent (the request went out, or was logged where no SMTP server is configured), suppressed (the customer opted out of marketing email: not sent), failed (the SMTP server refused it, or the send was interrupted), answered.',
});

export const SurveyQuestion = Type.Object(
  {
    id: Type.String({ description: 'Unique within the flow; an answer names it.' }),
    text: Type.String(),
    kind: SurveyQuestionKindValue,
    choices: Type.Optional(Type.Array(Type.String(), { description: 'The choices of a choice question.' })),
  },
  { additionalProperties: false },
);

export const SurveyFlow = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    trigger: SurveyTriggerValue,
    delayDays: Type.Integer({ minimum: 0, maximum: 365, description: 'Days after the trigger date.' }),
    emailTemplateId: Type.String({
      format: 'uuid',
      description: 'The surveyRequest email template the request is written with.',
    }),
    questions: Type.Array(SurveyQuestion),
    isActive: Type.Boolean({ description: 'Only an active flow schedules surveys.' }),
    metadata: Metadata,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'SurveyFlow', additionalProperties: false },
);
export type SurveyFlow = Static<typeof SurveyFlow>;

export const SurveyAnswerRecord = Type.Object(
  {
    questionId: Type.String(),
    step: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, description: 'The answer to a rating question.' })),
    choice: Type.Optional(Type.String({ description: 'The answer to a choice question.' })),
    text: Type.Optional(Type.String({ description: 'The answer to a text question.' })),
  },
  { additionalProperties: false },
);

export const Survey = Type.Object(
  {
    id: Uuid,
    surveyFlowId: Uuid,
    customerId: Uuid,
    orderId: Uuid,
    status: SurveyStatusValue,
    scheduledFor: Type.String({ format: 'date-time', description: 'When its request is sent.' }),
    sentAt: NullableTimestamp,
    answeredAt: NullableTimestamp,
    answers: Type.Array(SurveyAnswerRecord, { description: 'Empty until it is answered.' }),
    mailId: Type.Union([Uuid, Type.Null()], {
      description:
        'Its request in the mail log (GET /mail-log/{id}), for as long as the log keeps it; null when none was written or it was withdrawn unsent.',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    customer: Type.Optional(Type.Union([EmbeddedCustomer, Type.Null()], { description: 'include=customer.' })),
    order: Type.Optional(Type.Union([EmbeddedOrder, Type.Null()], { description: 'include=order.' })),
  },
  { $id: 'Survey', additionalProperties: false },
);
export type Survey = Static<typeof Survey>;

export type SurveyFlowRow = Selectable<SurveyFlowsTable>;
export type SurveyRow = Selectable<SurveysTable>;

/** The columns toSurveyFlow reads. */
export const SURVEY_FLOW_COLUMNS = [
  'id',
  'name',
  'trigger',
  'delay_days',
  'email_template_id',
  'questions',
  'is_active',
  'metadata',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof SurveyFlowRow)[];
export type SurveyFlowFields = Pick<SurveyFlowRow, (typeof SURVEY_FLOW_COLUMNS)[number]>;

/** The columns toSurvey reads. */
export const SURVEY_COLUMNS = [
  'id',
  'survey_flow_id',
  'customer_id',
  'order_id',
  'status',
  'scheduled_for',
  'sent_at',
  'answered_at',
  'answers',
  'mail_id',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof SurveyRow)[];
export type SurveyFields = Pick<SurveyRow, (typeof SURVEY_COLUMNS)[number]>;

const question = (stored: StoredQuestion) => ({
  id: stored.id,
  text: stored.text,
  kind: stored.kind,
  ...(stored.choices ? { choices: stored.choices } : {}),
});
const answer = (stored: SurveyAnswer) => ({
  questionId: stored.questionId,
  ...(stored.step !== undefined ? { step: stored.step } : {}),
  ...(stored.choice !== undefined ? { choice: stored.choice } : {}),
  ...(stored.text !== undefined ? { text: stored.text } : {}),
});

export const toSurveyFlow = (row: SurveyFlowFields): SurveyFlow => ({
  id: row.id,
  name: row.name,
  trigger: row.trigger,
  delayDays: row.delay_days,
  emailTemplateId: row.email_template_id,
  questions: row.questions.map(question),
  isActive: row.is_active,
  metadata: row.metadata,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export const toSurvey = (row: SurveyFields): Survey => ({
  id: row.id,
  surveyFlowId: row.survey_flow_id,
  customerId: row.customer_id,
  orderId: row.order_id,
  status: row.status,
  scheduledFor: row.scheduled_for.toISOString(),
  sentAt: row.sent_at?.toISOString() ?? null,
  answeredAt: row.answered_at?.toISOString() ?? null,
  answers: row.answers.map(answer),
  mailId: row.mail_id,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export type SurveyFlowEventName = 'surveyFlow.created' | 'surveyFlow.updated' | 'surveyFlow.deleted';

export const surveyFlowEvent = (
  organizationId: string,
  name: SurveyFlowEventName,
  row: SurveyFlowFields,
): EventToRecord => ({ organizationId, name, schema: SurveyFlow, record: toSurveyFlow(row) });

export const surveyDeletedEvent = (organizationId: string, row: SurveyFields): EventToRecord => ({
  organizationId,
  name: 'survey.deleted',
  schema: Survey,
  record: toSurvey(row),
});
