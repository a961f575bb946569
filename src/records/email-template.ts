/** The email template record (docs/api.md#email-templates): its response shape, columns, mapping and events. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { EmailTemplatesTable } from '../db/schema.js';
import type { EventToRecord } from '../core/event-to-record.js';
import { Timestamp, Uuid } from './common.js';

/** The mails a template can write (docs/api.md#email-templates). */
export const EMAIL_TEMPLATE_KINDS = [
  'surveyRequest',
  'rewardIssued',
  'rewardExpiringSoon',
  'pointsExpiringSoon',
  'reviewReplied',
] as const;
export type EmailTemplateKind = (typeof EMAIL_TEMPLATE_KINDS)[number];

/** An enum, not a union of literals: generators read it as one string type, and a wrong value names every value. */
export const EmailTemplateKindValue = Type.Unsafe<EmailTemplateKind>({
  type: 'string',
  enum: [...EMAIL_TEMPLATE_KINDS],
  description: 'The mail the template writes; it decides which variables the template may use.',
});

/** An email template (docs/api.md#email-templates): Liquid for the subject, the HTML part and the text part. */
export const EmailTemplate = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    kind: EmailTemplateKindValue,
    subject: Type.String({ description: 'Liquid source of the subject line.' }),
    html: Type.String({ description: 'Liquid source of the HTML part; every output is HTML-escaped.' }),
    text: Type.String({ description: 'Liquid source of the plain-text part; empty for none.' }),
    locale: Type.String({ description: 'The BCP 47 language tag of the customers it is for, e.g. en or de-AT.' }),
    isActive: Type.Boolean({
      description: 'Only an active template is used to send mail; one active template per kind and locale.',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'EmailTemplate', additionalProperties: false },
);
export type EmailTemplate = Static<typeof EmailTemplate>;

export type EmailTemplateRow = Selectable<EmailTemplatesTable>;

/** The columns toEmailTemplate reads. */
export const EMAIL_TEMPLATE_COLUMNS = [
  'id',
  'name',
  'kind',
  'subject',
  'html',
  'text',
  'locale',
  'is_active',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof EmailTemplateRow)[];
export type EmailTemplateFields = Pick<EmailTemplateRow, (typeof EMAIL_TEMPLATE_COLUMNS)[number]>;

/** The one mapping from an email template row to its API shape. */
export const toEmailTemplate = (row: EmailTemplateFields): EmailTemplate => ({
  id: row.id,
  name: row.name,
  kind: row.kind as EmailTemplateKind,
  subject: row.subject,
  html: row.html,
  text: row.text,
  locale: row.locale,
  isActive: row.is_active,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export type EmailTemplateEventName = 'emailTemplate.created' | 'emailTemplate.updated' | 'emailTemplate.deleted';

export const emailTemplateEvent = (
  organizationId: string,
  name: EmailTemplateEventName,
  row: EmailTemplateFields,
): EventToRecord => ({
  organizationId,
  name,
  schema: EmailTemplate,
  record: toEmailTemplate(row),
});
