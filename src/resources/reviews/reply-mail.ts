import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { ReviewFields } from '../../records/review.js';
import type { Logger } from '../../util/logger.js';
import { activeTemplateFor, renderTemplate } from '../email-templates/index.js';
import { queueMail } from '../mail/index.js';

/*
 * The reviewReplied mail (docs/api.md#review-replies): the reviewer is told of the merchant's reply, in the
 * transaction that writes it. It is mail the reviewer asked for (they wrote to the store), so it goes whatever their
 * emailOptOut says, and only when the organization has an active reviewReplied template.
 */

interface Addressee {
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  organization_name: string;
  product_title: string | null;
  product_url: string | null;
}

/**
 * Queues the mail for a review whose reply was just written in `trx`; answers the mail's id, or undefined when none
 * is due (no active template, no reviewer) or its template could not be rendered for these values (logged as a
 * warning: the reply still commits).
 */
export async function queueReviewRepliedMail(
  trx: Executor,
  organizationId: string,
  review: ReviewFields,
  logger: Logger,
): Promise<string | undefined> {
  if (review.customer_id === null || review.reply_body === null) return undefined;
  // The review's language picks the template's locale: a German review is answered with the German template.
  const template = await activeTemplateFor(trx, organizationId, 'reviewReplied', review.language ?? undefined);
  if (!template) return undefined;
  const { rows } = await sql<Addressee>`
    select c.email, c.first_name, c.last_name, o.name as organization_name, p.title as product_title,
      p.url as product_url
    from organizations o
    left join customers c on c.organization_id = o.id and c.id = ${review.customer_id}::uuid
    left join products p on p.organization_id = o.id and p.id = ${review.product_id}::uuid
    where o.id = ${organizationId}::uuid`.execute(trx);
  const addressee = rows[0];
  if (!addressee?.email) return undefined;
  const variables = {
    customer: {
      firstName: addressee.first_name ?? '',
      lastName: addressee.last_name ?? '',
      email: addressee.email,
    },
    organization: { name: addressee.organization_name },
    review: {
      id: review.id,
      title: review.title,
      body: review.body,
      rating: review.rating,
      createdAt: review.created_at.toISOString(),
    },
    reply: { body: review.reply_body, updatedAt: review.reply_updated_at!.toISOString() },
    product: { title: addressee.product_title ?? '', url: addressee.product_url ?? '' },
  };
  let rendered;
  try {
    rendered = await renderTemplate(organizationId, template, variables);
  } catch (error) {
    logger.warn(
      {
        organizationId,
        kind: 'reviewReplied',
        emailTemplateId: template.id,
        customerId: review.customer_id,
        reviewId: review.id,
        err: error instanceof Error ? error.message : String(error),
      },
      'review reply mail not queued: its template could not be rendered',
    );
    return undefined;
  }
  return queueMail(trx, {
    organizationId,
    kind: 'reviewReplied',
    recipient: addressee.email,
    customerId: review.customer_id,
    ...rendered,
  });
}
