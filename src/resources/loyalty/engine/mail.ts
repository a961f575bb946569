import { pino } from 'pino';
import type { Executor } from '../../../db/executor.js';
import type { CustomersTable } from '../../../db/schema.js';
import type { EmailTemplate, EmailTemplateKind } from '../../../records/email-template.js';
import type { RewardRow } from '../../../records/loyalty/reward.js';
import type { Logger } from '../../../util/logger.js';
import { activeTemplateFor, renderTemplate, type TemplateVariables } from '../../email-templates/index.js';
import { queueMail } from '../../mail/index.js';

/**
 * The loyalty mails a customer asked for (docs/api.md#mail): rewardIssued when a reward is issued, rewardExpiringSoon
 * and pointsExpiringSoon when the overnight job announces what lapses soon. Each is queued in the transaction of the
 * change that causes it, only when the organization has an active template of the kind, whatever the customer's
 * emailOptOut says (the sender only suppresses marketing mail).
 */

const DAY = 86_400_000;

/**
 * Where a mail that could not be rendered is reported when the caller has no logger of its own (a request path: the
 * reward is issued, its mail skipped). Only warnings are ever written through it.
 */
const fallbackLogger: Logger = pino({ level: 'warn' });

/** A customer as a mail names it. */
export interface MailCustomer {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
}
type CustomerColumns = Pick<CustomersTable, 'id' | 'email' | 'first_name' | 'last_name'>;

/**
 * The template a batch of mails of this kind goes out with: one look-up per batch. Customers have no locale, so the
 * oldest active template of the kind is chosen whatever its locale (docs/api.md#mail); undefined when there is none,
 * and then no mail of the kind is queued.
 */
export const loyaltyTemplate = (db: Executor, organizationId: string, kind: EmailTemplateKind) =>
  activeTemplateFor(db, organizationId, kind);

const organizationName = async (trx: Executor, organizationId: string): Promise<string> =>
  (await trx.selectFrom('organizations').select('name').where('id', '=', organizationId).executeTakeFirstOrThrow())
    .name;

const customersById = async (
  trx: Executor,
  organizationId: string,
  ids: readonly string[],
): Promise<Map<string, MailCustomer>> => {
  if (ids.length === 0) return new Map();
  const rows: CustomerColumns[] = await trx
    .selectFrom('customers')
    .select(['id', 'email', 'first_name', 'last_name'])
    .where('organization_id', '=', organizationId)
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
};

const customerVariables = (customer: MailCustomer) => ({
  firstName: customer.first_name ?? '',
  lastName: customer.last_name ?? '',
  email: customer.email,
});

const amount = (cents: number) => (cents / 100).toFixed(2);

/** A plain description of a reward object, for a reward with neither a rule nor an issuer's note. */
function describeReward(reward: Record<string, unknown>): string {
  switch (reward['type']) {
    case 'percentageCoupon':
      return `${reward['percentageDiscount'] as number}% off`;
    case 'amountCoupon':
      return `${amount(reward['amountCents'] as number)} off`;
    case 'freeShipping':
      return typeof reward['maximumValueCents'] === 'number'
        ? `Free shipping up to ${amount(reward['maximumValueCents'])}`
        : 'Free shipping';
    case 'giftCard':
      return `Gift card of ${amount(reward['amountCents'] as number)}`;
    default:
      return 'A reward';
  }
}

/** reward.description: the issuing rule's name, else the issuer's note (reason), else what the reward gives. */
function rewardDescription(row: RewardRow): string {
  const ruleName = (row.rule_snapshot as { name?: unknown } | null)?.name;
  if (typeof ruleName === 'string' && ruleName) return ruleName;
  if (row.reason) return row.reason;
  return describeReward(row.reward as Record<string, unknown>);
}

const rewardVariables = (row: RewardRow) => ({
  code: row.code ?? '',
  description: rewardDescription(row),
  expiresAt: row.expires_at ? row.expires_at.toISOString() : '',
});

interface Addressed {
  customer: MailCustomer;
  variables: TemplateVariables;
  /** What the log line names when the mail cannot be rendered. */
  about: Record<string, unknown>;
}

/**
 * Renders the template for each recipient and queues the mails in `trx`. A mail that fails to render (a render limit)
 * is skipped with a warning: the change that caused it still commits (docs/api.md#mail).
 */
async function renderAndQueue(
  trx: Executor,
  organizationId: string,
  {
    kind,
    template,
    mails,
    logger,
  }: { kind: EmailTemplateKind; template: EmailTemplate; mails: readonly Addressed[]; logger: Logger },
): Promise<number> {
  let queued = 0;
  for (const { customer, variables, about } of mails) {
    let rendered;
    try {
      rendered = await renderTemplate(organizationId, template, variables);
    } catch (error) {
      logger.warn(
        {
          organizationId,
          kind,
          emailTemplateId: template.id,
          customerId: customer.id,
          ...about,
          err: error instanceof Error ? error.message : String(error),
        },
        'loyalty mail not queued: its template could not be rendered',
      );
      continue;
    }
    await queueMail(trx, {
      organizationId,
      kind,
      recipient: customer.email,
      customerId: customer.id,
      ...rendered,
    });
    queued += 1;
  }
  return queued;
}

/** rewardIssued mails for rewards just written in `trx`, each to its member's customer. */
export async function queueRewardIssuedMails(
  trx: Executor,
  organizationId: string,
  rewards: readonly { row: RewardRow; customer: MailCustomer }[],
  { template, logger = fallbackLogger }: { template: EmailTemplate; logger?: Logger | undefined },
): Promise<number> {
  if (rewards.length === 0) return 0;
  const organization = { name: await organizationName(trx, organizationId) };
  return renderAndQueue(trx, organizationId, {
    kind: 'rewardIssued',
    template,
    mails: rewards.map(({ row, customer }) => ({
      customer,
      variables: { customer: customerVariables(customer), organization, reward: rewardVariables(row) },
      about: { loyaltyRewardId: row.id },
    })),
    logger,
  });
}

/** rewardExpiringSoon mails for the rewards a batch of the overnight job announces; daysLeft counts whole days. */
export async function queueRewardExpiringSoonMails(
  trx: Executor,
  organizationId: string,
  rewards: readonly RewardRow[],
  { now, logger = fallbackLogger }: { now: Date; logger?: Logger | undefined },
): Promise<number> {
  if (rewards.length === 0) return 0;
  const template = await loyaltyTemplate(trx, organizationId, 'rewardExpiringSoon');
  if (!template) return 0;
  const customers = await customersById(
    trx,
    organizationId,
    rewards.map((row) => row.customer_id),
  );
  const organization = { name: await organizationName(trx, organizationId) };
  return renderAndQueue(trx, organizationId, {
    kind: 'rewardExpiringSoon',
    template,
    mails: rewards.flatMap((row) => {
      const customer = customers.get(row.customer_id);
      if (!customer) return [];
      const daysLeft = Math.max(0, Math.floor((row.expires_at!.getTime() - now.getTime()) / DAY));
      return [
        {
          customer,
          variables: { customer: customerVariables(customer), organization, reward: rewardVariables(row), daysLeft },
          about: { loyaltyRewardId: row.id },
        },
      ];
    }),
    logger,
  });
}

/** What one member is told by pointsExpiringSoon: how many points lapse, and the earliest time they do. */
export interface ExpiringPoints {
  customerId: string;
  loyaltyMembershipId: string;
  points: number;
  expiresAt: Date;
}

/** pointsExpiringSoon mails, one per member announced by a batch of the overnight job. */
export async function queuePointsExpiringSoonMails(
  trx: Executor,
  organizationId: string,
  announced: readonly ExpiringPoints[],
  logger: Logger = fallbackLogger,
): Promise<number> {
  if (announced.length === 0) return 0;
  const template = await loyaltyTemplate(trx, organizationId, 'pointsExpiringSoon');
  if (!template) return 0;
  const customers = await customersById(
    trx,
    organizationId,
    announced.map((entry) => entry.customerId),
  );
  const organization = { name: await organizationName(trx, organizationId) };
  return renderAndQueue(trx, organizationId, {
    kind: 'pointsExpiringSoon',
    template,
    mails: announced.flatMap((entry) => {
      const customer = customers.get(entry.customerId);
      if (!customer) return [];
      return [
        {
          customer,
          variables: {
            customer: customerVariables(customer),
            organization,
            points: entry.points,
            expiresAt: entry.expiresAt.toISOString(),
          },
          about: { loyaltyMembershipId: entry.loyaltyMembershipId },
        },
      ];
    }),
    logger,
  });
}
