import type { Executor } from '../../db/executor.js';
import type { ResourceModule } from '../../core/types.js';
import { EmailTemplate, toEmailTemplate, type EmailTemplateKind } from '../../records/email-template.js';
import { findActiveEmailTemplate } from './queries.js';
import { emailTemplateRoutes } from './routes.js';

/** Email templates (docs/api.md#email-templates): Liquid mails per kind and locale, checked when saved. */
export const emailTemplatesResource: ResourceModule = {
  name: 'email-templates',
  permissions: ['mail:read', 'mail:write'],
  description:
    "Email templates: the subject, HTML and text of a kind of mail in Liquid, checked against the kind's variables when saved, previewed with sample data.",
  routes: emailTemplateRoutes,
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [
    {
      names: ['emailTemplate.created', 'emailTemplate.updated', 'emailTemplate.deleted'],
      schema: EmailTemplate,
      firesWhen: 'POST, PATCH and DELETE on /email-templates.',
    },
  ],
};

/**
 * The template a mail of this kind goes out with, for the mail sender: the active one of the customer's locale, else
 * of its language, else any active one of the kind; undefined when the kind has none, and then no mail is sent
 * (docs/api.md#email-templates).
 */
export async function activeTemplateFor(
  db: Executor,
  organizationId: string,
  kind: EmailTemplateKind,
  locale?: string,
): Promise<EmailTemplate | undefined> {
  let canonical: string | undefined;
  try {
    canonical = locale ? Intl.getCanonicalLocales(locale)[0] : undefined;
  } catch {
    canonical = undefined;
  }
  const row = await findActiveEmailTemplate(db, organizationId, kind, canonical);
  return row && toEmailTemplate(row);
}

/** Rendering a template with the mail's variables, and the variables each kind of mail must supply. */
export { renderTemplate, type RenderedMail } from './liquid.js';
/** Held by every app while it is open, so that closing the last one ends the render threads. */
export { holdRenderPool } from './render-pool.js';
export { sampleVariables, TEMPLATE_VARIABLES, type TemplateVariables } from './variables.js';
