import { uuidv7 } from '../../../../util/ids.js';
import { recordEvents, recordEventsExpression } from '../../../../events/outbox.js';
import type { EventToRecord } from '../../../../core/event-to-record.js';
import { conflict } from '../../../../core/errors.js';
import { rewardCode } from '../codes.js';
import { rewardExpiresAt } from '../reward-object-rules.js';
import { manualFulfillment, type FulfillmentProvider } from './fulfillment.js';
import { insertIssuedRewards, loadMember, type Member, type RewardWrite } from './queries.js';
import type { Executor } from '../../../../db/executor.js';
import { toCustomer } from '../../../../records/customer.js';
import type { CouponReward } from '../../../../records/loyalty/reward-object.js';
import {
  type LoyaltyReward,
  rewardEvent,
  type RewardRow,
  type RewardRule,
  toReward,
} from '../../../../records/loyalty/reward.js';
import { toEmbeddedMembership } from '../../../../records/loyalty/membership.js';
import type { EmailTemplate } from '../../../../records/email-template.js';
import type { Logger } from '../../../../util/logger.js';
import { loyaltyTemplate, queueRewardIssuedMails } from '../mail.js';

/** Attempts at a fresh code before giving up; a clash among 31^12 codes is already a one-in-billions event. */
const CODE_ATTEMPTS = 5;

export interface IssueSpec {
  /** The reward's id when the caller needs it beforehand (a claim's ledger entry names the reward); default new. */
  id?: string | undefined;
  loyaltyMembershipId: string;
  /** Validated and normalised (normalizeReward); points rewards never get here (rule 3). */
  reward: CouponReward;
  /**
   * An explicit expiry overriding reward.expiry and the program default (docs/api.md#issuing-a-reward-by-hand);
   * null means never.
   */
  expiresAt?: Date | null | undefined;
  /** Stored on the reward and on the member's activity entry (docs/api.md#issuing-a-reward-by-hand). */
  reason?: string | null | undefined;
  loyaltyRuleId?: string | null | undefined;
  /** The issuing rule's configuration as it is now, so the reward reads correctly after the rule is edited. */
  ruleSnapshot?: Record<string, unknown> | null | undefined;
  loyaltyTransactionId?: string | null | undefined;
  stampCardId?: string | null | undefined;
}

export interface IssueOptions {
  /** The member, when the caller has already loaded and locked it (loadMember); otherwise loaded here unlocked. */
  member?: Member | undefined;
  /** The issuing rule as include=rule shows it (null or absent when issued by hand). */
  rule?: RewardRule | null | undefined;
  now?: Date | undefined;
  fulfillment?: FulfillmentProvider | undefined;
  /** Write loyaltyReward.issued with the reward (then Issued.events is empty): for a caller with no other change. */
  recordEvents?: boolean | undefined;
}

export interface Issued {
  row: RewardRow;
  /** The reward with customer, membership and rule embedded, as POST /loyalty-rewards answers. */
  reward: LoyaltyReward;
  /** loyaltyReward.issued, unless options.recordEvents wrote it: the caller records it (last in its transaction). */
  events: EventToRecord[];
}

export interface IssueRequest {
  spec: IssueSpec;
  /** The member (loadMembers): locked by the caller, or read unlocked (the insert re-checks it under a lock). */
  member: Member;
  /** The issuing rule as include=rule shows it (null or absent when issued by hand). */
  rule?: RewardRule | null | undefined;
}

/** A reward about to be written: its row as stored, its API shape with embeds, its event and feed entry. */
interface Planned extends Issued {
  write: RewardWrite;
}

function plan(
  organizationId: string,
  request: IssueRequest,
  expiresAt: Date | null,
  now: Date,
  provider: FulfillmentProvider,
  id: string,
): Planned {
  const { spec, member } = request;
  const code = rewardCode();
  const row: RewardRow = {
    organization_id: organizationId,
    id,
    loyalty_membership_id: member.membership.id,
    customer_id: member.membership.customer_id,
    loyalty_rule_id: spec.loyaltyRuleId ?? null,
    stamp_card_id: spec.stampCardId ?? null,
    loyalty_transaction_id: spec.loyaltyTransactionId ?? null,
    reward: spec.reward,
    status: 'pending',
    code,
    redeemed_at: null,
    expires_at: expiresAt,
    revoked_at: null,
    metadata: {},
    fulfillment: provider.issue(spec.reward, { organizationId, code }),
    rule_snapshot: spec.ruleSnapshot ?? null,
    reason: spec.reason ?? null,
    order_id: null,
    expiring_soon_sent_at: null,
    created_at: now,
    updated_at: now,
  };
  const reward: LoyaltyReward = {
    ...toReward(row),
    customer: toCustomer(member.customer),
    membership: toEmbeddedMembership(member.membership),
    rule: request.rule ?? null,
  };
  const activity = {
    id: uuidv7(),
    data: { code, rewardType: spec.reward.type, loyaltyRuleId: row.loyalty_rule_id, stampCardId: row.stamp_card_id },
  };
  return {
    row,
    reward,
    events: [rewardEvent(organizationId, 'loyaltyReward.issued', reward)],
    write: { row, activity },
  };
}

/**
 * The resolved expiry of a request (docs/api.md#issuing-a-reward-by-hand): null never expires; a date at or before
 * `now` would be born expired.
 */
export const issueExpiry = (request: IssueRequest, now: Date): Date | null =>
  rewardExpiresAt(now, {
    expiresAt: request.spec.expiresAt,
    rewardExpiry: request.spec.reward.expiry,
    programDefault: request.member.programDefaultExpiry,
  });

/**
 * Issues rewards, each with a fresh code (docs/api.md#reward-codes: unique per organization by index; drawn again on
 * a clash), its expiry resolved as docs/api.md#issuing-a-reward-by-hand states, fulfillment from the provider, and
 * the member's activity entry: one statement for all of them.
 * Used by POST /loyalty-rewards, claims, stamp-card completion and earning alike. Inside a caller's transaction the
 * loyaltyReward.issued events are returned for the caller to record with its own; with `recordEvents` (a single
 * request only), the event is written by the same statement as the reward, so a caller with nothing else to change
 * needs no transaction at all. Throws 409 when a membership has been left or deleted, or a resolved expiry has
 * already passed (callers that must not fail on it filter with issueExpiry first).
 *
 * When the organization has an active rewardIssued template (one look-up per call), each reward's mail to its
 * member's customer is queued with it (docs/api.md#mail): in the caller's transaction, or, for a caller without one,
 * in a transaction opened here so that the reward and its mail commit together. Without a template nothing more is
 * written and the single statement stays a single statement.
 */
export async function issueRewards(
  db: Executor,
  organizationId: string,
  requests: readonly IssueRequest[],
  options: IssueRewardsOptions = {},
): Promise<Issued[]> {
  if (requests.length === 0) return [];
  const template = await loyaltyTemplate(db, organizationId, 'rewardIssued');
  if (template && !db.isTransaction) {
    return db.transaction().execute((trx) => issueAndMail(trx, organizationId, requests, options, template));
  }
  return issueAndMail(db, organizationId, requests, options, template);
}

export interface IssueRewardsOptions {
  now?: Date | undefined;
  fulfillment?: FulfillmentProvider | undefined;
  recordEvents?: boolean | undefined;
  /** Where a mail that cannot be rendered is reported (the reward is issued, the mail skipped). */
  logger?: Logger | undefined;
}

async function issueAndMail(
  db: Executor,
  organizationId: string,
  requests: readonly IssueRequest[],
  options: IssueRewardsOptions,
  template: EmailTemplate | undefined,
): Promise<Issued[]> {
  if (!template) return writeRewards(db, organizationId, requests, options);
  // The events are recorded last in the transaction (the outbox's rule), after the mails, so the statement that
  // writes the rewards does not carry them here.
  const issued = await writeRewards(db, organizationId, requests, { ...options, recordEvents: false });
  await queueRewardIssuedMails(
    db,
    organizationId,
    template,
    issued.map(({ row }, index) => ({ row, customer: requests[index]!.member.customer })),
    options.logger,
  );
  if (!options.recordEvents) return issued;
  await recordEvents(
    db,
    issued.flatMap(({ events }) => events),
  );
  return issued.map((each) => ({ ...each, events: [] }));
}

async function writeRewards(
  db: Executor,
  organizationId: string,
  requests: readonly IssueRequest[],
  options: IssueRewardsOptions,
): Promise<Issued[]> {
  const now = options.now ?? new Date();
  const provider = options.fulfillment ?? manualFulfillment;
  const expiries = requests.map((request) => {
    if (request.member.membership.left_at) throw memberLeft();
    const expiresAt = issueExpiry(request, now);
    if (expiresAt && expiresAt.getTime() <= now.getTime()) {
      throw conflict(`The reward would already have expired (at ${expiresAt.toISOString()}); give a later expiry.`);
    }
    return expiresAt;
  });
  const ids = requests.map((request) => request.spec.id ?? uuidv7());
  const issued: (Planned | undefined)[] = requests.map(() => undefined);
  for (let attempt = 0; attempt < CODE_ATTEMPTS; attempt += 1) {
    const pending = requests.flatMap((request, index) =>
      issued[index]
        ? []
        : [{ index, planned: plan(organizationId, request, expiries[index]!, now, provider, ids[index]!) }],
    );
    if (pending.length === 0) break;
    const events = options.recordEvents
      ? recordEventsExpression(pending.flatMap(({ planned }) => planned.events)).expression
      : undefined;
    const written = await insertIssuedRewards(
      db,
      organizationId,
      pending.map(({ planned }) => planned.write),
      events,
    );
    for (const { index, planned } of pending) {
      if (written.issued.has(planned.row.id)) {
        issued[index] = planned;
        continue;
      }
      const standing = written.members.get(planned.row.loyalty_membership_id);
      if (standing === false) throw memberLeft();
      if (standing === undefined)
        throw conflict('The loyalty membership was deleted while the reward was being issued; nothing was issued.');
      // Otherwise its code was taken: drawn again on the next attempt.
    }
  }
  if (issued.some((planned) => !planned))
    throw new Error(`issueRewards: no free reward code after ${CODE_ATTEMPTS} attempts`);
  return issued.map((planned) => {
    const { row, reward, events } = planned!;
    return { row, reward, events: options.recordEvents ? [] : events };
  });
}

/** issueRewards for one reward; the member is loaded (unlocked) when the caller has not. */
export async function issueReward(
  db: Executor,
  organizationId: string,
  spec: IssueSpec,
  options: IssueOptions = {},
): Promise<Issued> {
  const member = options.member ?? (await loadMember(db, organizationId, spec.loyaltyMembershipId, 'none'));
  if (!member)
    throw new Error(
      `issueReward: membership ${spec.loyaltyMembershipId} does not exist in organization ${organizationId}`,
    );
  const [issued] = await issueRewards(db, organizationId, [{ spec, member, rule: options.rule }], options);
  return issued!;
}

const memberLeft = () => conflict('The member has left the loyalty program; rejoin before issuing rewards to them.');
