import { authOf } from '../../http/auth.js';
import type { PatronApp, PlatformServices } from '../../core/types.js';
import { listQuerySchema } from '../../lists/query.js';
import { IdParams } from '../../records/common.js';
import { listEnvelope } from '../../records/envelope.js';
import { MailMessage } from '../../records/mail-message.js';
import { mailList } from './list.js';
import { MailLogService } from './service.js';

const tags = ['mail'];

export function mailRoutes(app: PatronApp, { db }: PlatformServices): void {
  const log = new MailLogService(db);
  const read = { permission: 'mail:read', cost: 1 };

  app.get(
    '/mail-log',
    {
      config: read,
      schema: {
        operationId: 'listMailLog',
        summary:
          'Every mail queued, sent or not, newest first: recipient, kind, status, error, sentAt; filter on status, kind, recipient, customerId, createdAt, sentAt',
        tags,
        querystring: listQuerySchema(mailList),
        response: { 200: listEnvelope(MailMessage) },
      },
    },
    async (request) => log.list(authOf(request).organizationId, request.query),
  );

  app.get(
    '/mail-log/:id',
    {
      config: read,
      schema: {
        operationId: 'getMailLogEntry',
        summary: 'One mail of the log',
        tags,
        params: IdParams,
        response: { 200: MailMessage },
      },
    },
    async (request) => log.get(authOf(request).organizationId, request.params.id),
  );
}
