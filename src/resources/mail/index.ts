import type { ResourceModule } from '../../core/types.js';
import { mailRoutes } from './routes.js';

export const mailResource: ResourceModule = {
  name: 'mail',
  // mail:write is granted for the mail the API will send (templates and surveys); the log itself is read-only.
  permissions: ['mail:read', 'mail:write'],
  description:
    'The mail log: every mail Patron queues, whether it was sent through SMTP, only logged, suppressed by an opt-out, failed or interrupted.',
  routes: mailRoutes,
};

/** What other resources call: queue a mail in their own transaction (docs/api.md#mail). */
export { queueMail, queueMails, withdrawQueuedMail, type NewMail } from './service.js';
/** What `patron serve` starts, through src/compose.ts. */
export { startMailSender, type MailSender, type MailSenderOptions } from './sender.js';
