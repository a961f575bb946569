import { authOf } from '../../http/auth.js';
import { optionalBody } from '../../http/optional-body.js';
import { checkCreateBody } from '../../resource-kit/body.js';
import type { PatronApp, PlatformServices } from '../../core/types.js';
import { listQuerySchema } from '../../lists/query.js';
import { IdParams } from '../../records/common.js';
import { listEnvelope } from '../../records/envelope.js';
import { EmailTemplate } from '../../records/email-template.js';
import { emailTemplateList } from './list.js';
import {
  EMAIL_TEMPLATE_REQUIRED,
  EmailTemplateCreateBody,
  EmailTemplatePatchBody,
  EmailTemplatePreviewBody,
  RenderedEmail,
} from './schemas.js';
import { holdRenderPool } from './render-pool.js';
import { EmailTemplateService } from './service.js';

const tags = ['email-templates'];
const ACTIVE_TAKEN = 'with isActive true, another active template of the same kind and locale exists';
/** Saving and previewing render the template (docs/api.md#rendering-limits). */
const RENDERS_BUSY =
  'the organization cannot afford the cost now, or already has its most template renders running and waiting; see Retry-After';

export function emailTemplateRoutes(app: PatronApp, { db }: PlatformServices): void {
  const templates = new EmailTemplateService(db);
  // Renders run on a pool of threads shared by the process; the app holds it until it closes.
  app.addHook('onClose', holdRenderPool());
  const read = { permission: 'mail:read', cost: 1 };
  const write = { permission: 'mail:write', cost: 1 };

  app.get(
    '/email-templates',
    {
      config: read,
      schema: {
        operationId: 'listEmailTemplates',
        summary: 'List email templates, newest first by default',
        tags,
        querystring: listQuerySchema(emailTemplateList),
        response: { 200: listEnvelope(EmailTemplate) },
      },
    },
    async (request) => templates.list(authOf(request).organizationId, request.query),
  );

  app.post(
    '/email-templates',
    {
      config: {
        ...write,
        checkBody: checkCreateBody(EMAIL_TEMPLATE_REQUIRED, 'email template'),
        refusals: { 409: ACTIVE_TAKEN, 429: RENDERS_BUSY },
      },
      schema: {
        operationId: 'createEmailTemplate',
        summary:
          "Save an email template (name, kind, subject and html required; Liquid checked against the kind's variables); triggers emailTemplate.created",
        tags,
        body: EmailTemplateCreateBody,
        response: { 201: EmailTemplate },
      },
    },
    async (request, reply) => {
      const template = await templates.create(authOf(request).organizationId, request.body);
      return reply.code(201).send(template);
    },
  );

  app.get(
    '/email-templates/:id',
    {
      config: read,
      schema: {
        operationId: 'getEmailTemplate',
        summary: 'One email template',
        tags,
        params: IdParams,
        response: { 200: EmailTemplate },
      },
    },
    async (request) => templates.get(authOf(request).organizationId, request.params.id),
  );

  app.patch(
    '/email-templates/:id',
    {
      config: { ...write, refusals: { 409: ACTIVE_TAKEN, 429: RENDERS_BUSY } },
      schema: {
        operationId: 'updateEmailTemplate',
        summary:
          "Change an email template's name, subject, html, text, locale or isActive (Liquid checked against its kind's variables); triggers emailTemplate.updated",
        tags,
        params: IdParams,
        body: EmailTemplatePatchBody,
        response: { 200: EmailTemplate },
      },
    },
    async (request) => templates.update(authOf(request).organizationId, request.params.id, request.body),
  );

  app.delete(
    '/email-templates/:id',
    {
      config: { ...write, refusals: { 409: 'a survey flow uses the template' } },
      schema: {
        operationId: 'deleteEmailTemplate',
        summary: 'Delete an email template; triggers emailTemplate.deleted',
        tags,
        params: IdParams,
        response: { 200: EmailTemplate },
      },
    },
    async (request) => templates.delete(authOf(request).organizationId, request.params.id),
  );

  app.post(
    '/email-templates/:id/preview',
    {
      config: {
        ...read,
        refusals: {
          422: 'template rendering exceeded its CPU-time, memory or output limit, which the message names',
          429: RENDERS_BUSY,
        },
      },
      // The body is optional (only variables to override the samples).
      preValidation: optionalBody,
      schema: {
        operationId: 'previewEmailTemplate',
        summary:
          "Render an email template with its kind's sample data, any variables sent replacing the samples; sends nothing",
        tags,
        params: IdParams,
        body: EmailTemplatePreviewBody,
        response: { 200: RenderedEmail },
      },
    },
    async (request) => templates.preview(authOf(request).organizationId, request.params.id, request.body),
  );
}
