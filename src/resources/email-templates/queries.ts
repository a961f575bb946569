import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { EmailTemplateKind } from '../../records/email-template.js';
import { updateIfChanged } from '../../resource-kit/changes.js';

export const findEmailTemplate = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('email_templates')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

export const lockEmailTemplate = (trx: Executor, organizationId: string, id: string) =>
  trx
    .selectFrom('email_templates')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();

/**
 * The active template of a kind for a locale: the exact locale first, then its language (de for de-AT), then any
 * active one of the kind, oldest first (docs/api.md#email-templates).
 */
export const findActiveEmailTemplate = (
  db: Executor,
  organizationId: string,
  kind: EmailTemplateKind,
  locale: string | undefined,
) => {
  const language = locale?.split('-')[0] ?? null;
  return db
    .selectFrom('email_templates')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('kind', '=', kind)
    .where('is_active', '=', true)
    .orderBy(sql`case when locale = ${locale ?? null} then 0 when locale = ${language} then 1 else 2 end`)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
};

export const insertEmailTemplate = (
  trx: Executor,
  values: {
    organizationId: string;
    id: string;
    name: string;
    kind: EmailTemplateKind;
    subject: string;
    html: string;
    text: string;
    locale: string;
    isActive: boolean;
  },
) =>
  trx
    .insertInto('email_templates')
    .values({
      organization_id: values.organizationId,
      id: values.id,
      name: values.name,
      kind: values.kind,
      subject: values.subject,
      html: values.html,
      text: values.text,
      locale: values.locale,
      is_active: values.isActive,
    })
    .returningAll()
    .executeTakeFirstOrThrow();

/** The fields sent; undefined when they are the stored ones (nothing written: docs/api.md#writes-that-change-nothing). */
export const updateEmailTemplate = (
  trx: Executor,
  organizationId: string,
  id: string,
  changes: {
    name?: string | undefined;
    subject?: string | undefined;
    html?: string | undefined;
    text?: string | undefined;
    locale?: string | undefined;
    isActive?: boolean | undefined;
  },
) =>
  updateIfChanged(
    trx,
    { table: 'email_templates', organizationId, id },
    {
      name: changes.name,
      subject: changes.subject,
      html: changes.html,
      text: changes.text,
      locale: changes.locale,
      is_active: changes.isActive,
    },
  );

export const deleteEmailTemplateRow = (trx: Executor, organizationId: string, id: string) =>
  trx
    .deleteFrom('email_templates')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
