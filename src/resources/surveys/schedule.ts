import type { Executor } from '../../db/executor.js';
import type { SurveyTrigger } from '../../db/schema.js';
import type { Logger } from '../../util/logger.js';
import { uuidv7 } from '../../util/ids.js';
import { renderTemplate } from '../email-templates/index.js';
import { queueMails } from '../mail/index.js';
import {
  activeFlows,
  failSurveys,
  hasActiveFlow,
  insertNewSurveys,
  ordersForSurveys,
  type NewSurvey,
} from './queries.js';

/** An order as a write found it before it changed: its fulfilment dates (null for an order the write creates). */
export interface OrderDatesBefore {
  shippedAt: Date | null;
  deliveredAt: Date | null;
}

const DAY_MS = 86_400_000;

/**
 * Whether the organization has an active flow at all: writers of orders ask first, and read the dates an order had
 * before their change only when it does, so an organization without surveys pays one indexed look-up per write.
 */
export const surveysMayBeDue = hasActiveFlow;

/**
 * Schedules the surveys an order change makes due, in the caller's transaction (docs/api.md#when-a-survey-is-scheduled):
 * each order that gained its shippedAt (or deliveredAt) gets one survey per active orderShipped (orderDelivered) flow,
 * scheduled delayDays after that date, or now when that moment has passed; never a second one for the same order and
 * flow, whoever writes it. Its request is queued in the mail outbox due at that moment, written with the flow's
 * template as it is now. `before` holds each changed order's dates before the change (absent: the order is new).
 */
export async function scheduleSurveys(
  trx: Executor,
  organizationId: string,
  orderIds: readonly string[],
  { before, logger }: { before: ReadonlyMap<string, OrderDatesBefore>; logger?: Logger | undefined },
): Promise<number> {
  if (orderIds.length === 0) return 0;
  const flows = await activeFlows(trx, organizationId, ['orderShipped', 'orderDelivered']);
  if (flows.length === 0) return 0;
  const orders = await ordersForSurveys(trx, organizationId, orderIds);
  const now = Date.now();
  const gainedDate = (order: (typeof orders)[number], trigger: SurveyTrigger): Date | null => {
    const was = before.get(order.id);
    const date = trigger === 'orderShipped' ? order.shipped_at : order.delivered_at;
    const previous = trigger === 'orderShipped' ? was?.shippedAt : was?.deliveredAt;
    return date && !previous ? date : null;
  };
  const planned: (NewSurvey & { order: (typeof orders)[number]; flow: (typeof flows)[number] })[] = [];
  for (const order of orders) {
    for (const flow of flows) {
      const date = gainedDate(order, flow.trigger);
      if (!date) continue;
      planned.push({
        id: uuidv7(),
        surveyFlowId: flow.id,
        customerId: order.customer_id,
        orderId: order.id,
        scheduledFor: new Date(Math.max(now, date.getTime() + flow.delay_days * DAY_MS)),
        mailId: uuidv7(),
        order,
        flow,
      });
    }
  }
  const inserted = new Set((await insertNewSurveys(trx, organizationId, planned)).map((row) => row.id));
  const fresh = planned.filter((survey) => inserted.has(survey.id));
  const mails = [];
  const unrenderable: string[] = [];
  for (const survey of fresh) {
    const { order, flow } = survey;
    try {
      const rendered = await renderTemplate(organizationId, flow, {
        customer: { firstName: order.first_name ?? '', lastName: order.last_name ?? '', email: order.email },
        organization: { name: order.organization_name },
        survey: { id: survey.id, url: surveyUrl(order.domain, survey.id) },
        order: {
          number: order.number,
          shippedAt: order.shipped_at?.toISOString() ?? '',
          deliveredAt: order.delivered_at?.toISOString() ?? '',
        },
      });
      mails.push({
        id: survey.mailId,
        organizationId,
        kind: 'surveyRequest' as const,
        recipient: order.email,
        customerId: order.customer_id,
        ...rendered,
        dueAt: survey.scheduledFor,
      });
    } catch (error) {
      // A template that renders for its samples may still fail for a customer (a render limit): the survey fails
      // rather than the order write (docs/api.md#when-a-survey-is-scheduled).
      logger?.warn({ err: error, surveyId: survey.id }, 'survey request could not be rendered');
      unrenderable.push(survey.id);
    }
  }
  await queueMails(trx, mails);
  await failSurveys(trx, organizationId, unrenderable);
  return fresh.length;
}

/**
 * The default answer link: the survey page of the order's store (docs/api.md#survey-requests). A template that links
 * elsewhere builds its own from survey.id.
 */
export function surveyUrl(domain: string, surveyId: string): string {
  const host = domain
    .trim()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
    .replace(/\/+$/, '');
  return `https://${host}/survey/${surveyId}`;
}
