import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../db/errors.js';
import { recordEvents } from '../../events/outbox.js';
import { conflict, notFound, validationError, type ErrorDetail } from '../../core/errors.js';
import { listRecords } from '../../lists/engine.js';
import type { ListParams } from '../../lists/query.js';
import { requireFields, unwrapData } from '../../resource-kit/body.js';
import { uuidv7 } from '../../util/ids.js';
import {
  emailTemplateEvent,
  toEmailTemplate,
  type EmailTemplate,
  type EmailTemplateKind,
} from '../../records/email-template.js';
import { checkRendersWithinLimits, checkTemplate, previewTemplate, type RenderedMail } from './liquid.js';
import { emailTemplateList } from './list.js';
import {
  deleteEmailTemplateRow,
  findEmailTemplate,
  insertEmailTemplate,
  lockEmailTemplate,
  updateEmailTemplate,
} from './queries.js';
import {
  EMAIL_TEMPLATE_REQUIRED,
  type EmailTemplateCreateBody,
  type EmailTemplateCreateInput,
  type EmailTemplatePatchBody,
  type EmailTemplatePatchInput,
  type EmailTemplatePreviewBody,
} from './schemas.js';
import { sampleVariables, TEMPLATE_VARIABLES, type TemplateVariables } from './variables.js';

/** A locale in its canonical BCP 47 form (de-at is stored as de-AT), or 400 naming the field. */
function canonicalLocale(locale: string, path: string): string {
  try {
    const [canonical] = Intl.getCanonicalLocales(locale);
    if (canonical) return canonical;
  } catch {
    // RangeError: not a well-formed language tag; answered below.
  }
  throw validationError(`Invalid request: ${path} must be a BCP 47 language tag such as en or de-AT.`, [
    { path, message: 'must be a BCP 47 language tag such as en or de-AT' },
  ]);
}

const activeTaken = (kind: EmailTemplateKind, locale: string) =>
  conflict(
    `Another active ${kind} template exists for locale ${locale}: deactivate it first (isActive false), or save this one with isActive false.`,
  );

export class EmailTemplateService {
  constructor(private readonly db: Kysely<DB>) {}

  async list(organizationId: string, params: ListParams) {
    return listRecords(this.db, { list: emailTemplateList, organizationId, params, toRecord: toEmailTemplate });
  }

  async get(organizationId: string, id: string): Promise<EmailTemplate> {
    const row = await findEmailTemplate(this.db, organizationId, id);
    if (!row) throw notFound('The email template');
    return toEmailTemplate(row);
  }

  async create(organizationId: string, body: EmailTemplateCreateBody | undefined): Promise<EmailTemplate> {
    const { fields, path } = unwrapData<EmailTemplateCreateInput>(body, 'email template');
    requireFields(fields, EMAIL_TEMPLATE_REQUIRED, path);
    const kind = fields.kind!;
    const locale = canonicalLocale(fields.locale ?? 'en', `${path}.locale`);
    checkTemplate(kind, fields, path);
    await checkRendersWithinLimits(
      organizationId,
      kind,
      { subject: fields.subject!, html: fields.html!, text: fields.text ?? '' },
      path,
    );
    try {
      return await this.db.transaction().execute(async (trx) => {
        const row = await insertEmailTemplate(trx, {
          organizationId,
          id: uuidv7(),
          name: fields.name!,
          kind,
          subject: fields.subject!,
          html: fields.html!,
          text: fields.text ?? '',
          locale,
          isActive: fields.isActive ?? true,
        });
        await recordEvents(trx, [emailTemplateEvent(organizationId, 'emailTemplate.created', row)]);
        return toEmailTemplate(row);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw activeTaken(kind, locale);
      throw error;
    }
  }

  async update(organizationId: string, id: string, body: EmailTemplatePatchBody | undefined): Promise<EmailTemplate> {
    const { fields, path } = unwrapData<EmailTemplatePatchInput>(body, 'email template');
    const locale = fields.locale === undefined ? undefined : canonicalLocale(fields.locale, `${path}.locale`);
    await this.checkChangedTemplateRenders(organizationId, id, fields, path);
    let taken: { kind: EmailTemplateKind; locale: string } | undefined;
    try {
      return await this.db.transaction().execute(async (trx) => {
        const before = await lockEmailTemplate(trx, organizationId, id);
        if (!before) throw notFound('The email template');
        const kind = before.kind as EmailTemplateKind;
        taken = { kind, locale: locale ?? before.locale };
        // Checked against the variables of the kind it was saved as, which a PATCH cannot change.
        checkTemplate(kind, fields, path);
        const row = await updateEmailTemplate(trx, organizationId, id, { ...fields, locale });
        // A PATCH that changes nothing sends nothing (docs/api.md#writes-that-change-nothing).
        if (!row) return toEmailTemplate(before);
        await recordEvents(trx, [emailTemplateEvent(organizationId, 'emailTemplate.updated', row)]);
        return toEmailTemplate(row);
      });
    } catch (error) {
      if (isUniqueViolation(error) && taken) throw activeTaken(taken.kind, taken.locale);
      throw error;
    }
  }

  /**
   * A PATCH that changes a part renders the template as it would be saved, before the transaction: a render takes up to
   * its time limit, and on the embedded engine a transaction holds every other request's queries
   * (docs/api.md#rendering-limits). A write racing this one on another part is not re-checked; the mail sender's own
   * limits still stop its mails.
   */
  private async checkChangedTemplateRenders(
    organizationId: string,
    id: string,
    fields: EmailTemplatePatchInput,
    path: string,
  ): Promise<void> {
    if (fields.subject === undefined && fields.html === undefined && fields.text === undefined) return;
    const before = await findEmailTemplate(this.db, organizationId, id);
    if (!before) throw notFound('The email template');
    const kind = before.kind as EmailTemplateKind;
    // The syntax and variables first, so that a broken part is named as such rather than rendered.
    checkTemplate(kind, fields, path);
    await checkRendersWithinLimits(
      organizationId,
      kind,
      { subject: fields.subject ?? before.subject, html: fields.html ?? before.html, text: fields.text ?? before.text },
      path,
    );
  }

  /** A template a survey flow writes its requests with cannot go: 409 (docs/api.md#email-templates). */
  async delete(organizationId: string, id: string): Promise<EmailTemplate> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const row = await deleteEmailTemplateRow(trx, organizationId, id);
        if (!row) throw notFound('The email template');
        await recordEvents(trx, [emailTemplateEvent(organizationId, 'emailTemplate.deleted', row)]);
        return toEmailTemplate(row);
      });
    } catch (error) {
      if (isForeignKeyViolation(error)) {
        throw conflict(
          'A survey flow writes its requests with this template: point the flow at another template (or delete the flow) first.',
        );
      }
      throw error;
    }
  }

  /** The template rendered with its kind's sample data, any variables sent laid over it (docs/api.md#email-templates). */
  async preview(organizationId: string, id: string, body: EmailTemplatePreviewBody | undefined): Promise<RenderedMail> {
    const row = await findEmailTemplate(this.db, organizationId, id);
    if (!row) throw notFound('The email template');
    const kind = row.kind as EmailTemplateKind;
    return previewTemplate(organizationId, row, withOverrides(kind, body?.variables ?? {}));
  }
}

/**
 * The samples with the variables sent laid over them: a plain value replaces the sample, an object's fields replace
 * those fields. A name the kind does not have is 400, as it would be in the template.
 */
function withOverrides(kind: EmailTemplateKind, overrides: NonNullable<EmailTemplatePreviewBody['variables']>) {
  const table = TEMPLATE_VARIABLES[kind];
  const variables: TemplateVariables = sampleVariables(kind);
  const details: ErrorDetail[] = [];
  for (const [name, value] of Object.entries(overrides)) {
    const path = `body.variables.${name}`;
    const spec = Object.hasOwn(table, name) ? table[name] : undefined;
    if (!spec) {
      details.push({ path, message: `is not a variable of ${kind} mails` });
      continue;
    }
    if (!spec.fields) {
      if (typeof value === 'object') details.push({ path, message: 'must be a string or a number' });
      else variables[name] = value;
      continue;
    }
    if (typeof value !== 'object') {
      details.push({ path, message: `must be an object of ${Object.keys(spec.fields).join(', ')}` });
      continue;
    }
    for (const field of Object.keys(value)) {
      if (!Object.hasOwn(spec.fields, field))
        details.push({ path: `${path}.${field}`, message: `is not a field of ${name}` });
    }
    variables[name] = { ...(variables[name] as Record<string, string | number>), ...value };
  }
  if (details.length) {
    throw validationError(`Invalid request: ${details[0]!.path} ${details[0]!.message}.`, details);
  }
  return variables;
}
