import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../../db/schema.js';
import { recordEvents } from '../../../events/outbox.js';
import { unprocessable, validationError } from '../../../core/errors.js';
import { unwrapData } from '../../../resource-kit/body.js';
import { requireFields } from '../body.js';
import { findMembership } from '../memberships/queries.js';
import { earnEvent } from '../engine/earning/earn-event.js';
import { importHistory } from '../engine/history.js';
import type { LoyaltyHistoryBody } from '../engine/schemas.js';
import { lockNamedMember } from '../engine/earning/members.js';
import { recordReferral } from '../engine/referrals.js';
import { activeRules, type Rule, type StampCardConfig } from '../engine/earning/rules.js';
import type {
  LoyaltyEventBody,
  LoyaltyEventFields,
  LoyaltyEventResult,
  LoyaltyStampBody,
  LoyaltyStampFields,
  LoyaltyStampResult,
} from './schemas.js';
import { stampCards } from '../engine/stamp-cards.js';
import { toMembership } from '../../../records/loyalty/membership.js';
import { toTransaction } from '../../../records/loyalty/transaction.js';
import { toStampCard } from '../../../records/loyalty/stamp-card.js';
import { toReferral } from '../../../records/loyalty/referral.js';
import { LOYALTY_EVENT_REQUIRED } from './schemas.js';

/** How far ahead of the server clock an occurredAt may be (clients' clocks drift). */
const CLOCK_SKEW_MS = 5 * 60_000;

export class LoyaltyEarningService {
  constructor(private readonly db: Kysely<DB>) {}

  /** POST /loyalty-events: a named event earns its rules' points; an optional referralCode records the referral. */
  async event(organizationId: string, body: LoyaltyEventBody | undefined): Promise<LoyaltyEventResult> {
    const { fields, path } = unwrapData<LoyaltyEventFields>(body, 'loyalty event');
    requireFields(fields, LOYALTY_EVENT_REQUIRED, path);
    const now = new Date();
    const occurredAt = fields.occurredAt === undefined ? now : new Date(fields.occurredAt);
    if (occurredAt.getTime() > now.getTime() + CLOCK_SKEW_MS) {
      throw validationError(`Invalid request: ${path}.occurredAt is in the future.`, [
        { path: `${path}.occurredAt`, message: 'must not be in the future' },
      ]);
    }
    return this.db.transaction().execute(async (trx) => {
      const member = await lockNamedMember(trx, organizationId, fields, path);
      const referred =
        fields.referralCode === undefined
          ? undefined
          : await recordReferral(trx, organizationId, member, fields.referralCode, `${path}.referralCode`);
      const { rules, credited } = await earnEvent(trx, organizationId, member, {
        eventName: fields.event!,
        occurredAt,
        key: fields.key,
        metadata: fields.metadata,
      });
      const membership = (await findMembership(trx, organizationId, member.id))!;
      await recordEvents(trx, [...(referred?.events ?? []), ...credited.events]);
      return {
        event: fields.event!,
        loyaltyMembershipId: member.id,
        occurredAt: occurredAt.toISOString(),
        pointsEarned: credited.transactions.reduce((sum, row) => sum + row.points, 0),
        rules,
        transactions: credited.transactions.map(toTransaction),
        membership: toMembership(membership),
        referral: referred ? toReferral(referred.referral) : null,
      };
    });
  }

  /**
   * POST /loyalty-stamps: stamps the member's card of a stampCards rule (the only one when not named), starting a
   * card when there is none, completing it (and issuing its reward) when full; stamps beyond start the next card.
   */
  async stamp(organizationId: string, body: LoyaltyStampBody | undefined): Promise<LoyaltyStampResult> {
    const { fields, path } = unwrapData<LoyaltyStampFields>(body, 'stamp');
    const stamps = fields.stamps ?? 1;
    return this.db.transaction().execute(async (trx) => {
      const member = await lockNamedMember(trx, organizationId, fields, path);
      const rule = await stampCardRule(
        trx,
        organizationId,
        member.loyalty_program_id,
        fields.stampCardRuleId?.toLowerCase(),
        `${path}.stampCardRuleId`,
      );
      if (fields.key !== undefined && (await stampKeyUsed(trx, organizationId, member.id, rule.id, fields.key))) {
        const { rows } = await sql<Parameters<typeof toStampCard>[0]>`
          select * from stamp_cards where organization_id = ${organizationId}::uuid and loyalty_membership_id = ${member.id}::uuid
            and loyalty_rule_id = ${rule.id}::uuid and completed_at is null`.execute(trx);
        return {
          loyaltyMembershipId: member.id,
          loyaltyRuleId: rule.id,
          stampsAdded: 0,
          duplicate: true,
          stampCards: rows.map(toStampCard),
          rewards: [],
          transactions: [],
        };
      }
      // Stamping writes the stampAdded entry with the key, which is what makes a keyed stamp idempotent
      // (stampKeyUsed).
      const stamped = await stampCards(trx, organizationId, [
        { membershipId: member.id, rule, stamps, key: fields.key ?? null },
      ]);
      await recordEvents(trx, stamped.events);
      return {
        loyaltyMembershipId: member.id,
        loyaltyRuleId: rule.id,
        stampsAdded: stamps,
        duplicate: false,
        stampCards: stamped.cards.map(toStampCard),
        rewards: stamped.rewards.map((issued) => issued.reward),
        transactions: stamped.transactions.map(toTransaction),
      };
    });
  }

  /**
   * POST /loyalty-history: historical ledger entries sent as import rows, applied in createdAt order
   * (docs/api.md#loyalty-history-import).
   */
  async history(organizationId: string, body: LoyaltyHistoryBody) {
    return this.db.transaction().execute((trx) => importHistory(trx, organizationId, body));
  }
}

/** The stampCards rule a stamp names, or the program's only active one. */
async function stampCardRule(
  trx: Transaction<DB>,
  organizationId: string,
  programId: string,
  ruleId: string | undefined,
  path: string,
) {
  const rules = (await activeRules(trx, organizationId, programId, 'stampCards')) as Rule<StampCardConfig>[];
  if (ruleId !== undefined) {
    const rule = rules.find((candidate) => candidate.id === ruleId);
    if (!rule)
      throw unprocessable(`${path} names no active stamp card rule of the member's loyalty program.`, [
        { path, message: 'no such active stampCards rule' },
      ]);
    return rule;
  }
  if (rules.length === 1) return rules[0]!;
  if (rules.length === 0) {
    throw unprocessable(
      "The member's loyalty program has no active stamp card rule; create one with POST /v1/loyalty-rules (section stampCards).",
      [{ path, message: 'no active stampCards rule' }],
    );
  }
  throw validationError(
    `Invalid request: ${path} is required when the program has more than one active stamp card rule.`,
    [{ path, message: 'is required when there are several stampCards rules' }],
  );
}

/** Whether a stamp with this key was already applied to the member's cards of the rule (its activity entry). */
async function stampKeyUsed(
  trx: Transaction<DB>,
  organizationId: string,
  membershipId: string,
  ruleId: string,
  key: string,
) {
  const { rows } = await sql`
    select 1 from loyalty_activity
    where organization_id = ${organizationId}::uuid and loyalty_membership_id = ${membershipId}::uuid and type = 'stampAdded'
      and data->>'loyaltyRuleId' = ${ruleId} and data->>'key' = ${key}
    limit 1`.execute(trx);
  return rows.length > 0;
}
