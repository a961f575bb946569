import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import { uuidv7 } from '../../../util/ids.js';
import { isUniqueViolation } from '../../../db/errors.js';
import type { DB } from '../../../db/schema.js';
import { recordEvents } from '../../../events/outbox.js';
import type { EventToRecord } from '../../../core/event-to-record.js';
import { conflict, notFound, unprocessable, validationError } from '../../../core/errors.js';
import { getRecord, listRecords } from '../../../lists/engine.js';
import type { ListParams } from '../../../lists/query.js';
import { updateIfChanged } from '../../../resource-kit/changes.js';
import { unwrapData } from '../../../resource-kit/body.js';
import { recordActivity } from '../engine/activity.js';
import { lockMembership, lockMembershipOf } from '../engine/locks.js';
import { requireFields, requireSomeField } from '../body.js';
import { resolveProgram } from '../engine/programs.js';
import { importMemberships } from './import.js';
import { memberActivityList, membershipList, scopedMemberActivityList } from './list.js';
import { compileFilterParam } from '../../../lists/filter.js';
import { type ActivityRow, toActivityEntry } from '../../../records/loyalty/activity-entry.js';
import {
  customerExists,
  deleteMembershipRow,
  findMembership,
  findTier,
  insertMemberships,
  withFreshReferralCodes,
} from './queries.js';
import {
  type JoinBody,
  type JoinFields,
  type MembershipImportBody,
  type MembershipPatchBody,
  type MembershipPatchFields,
  type PointsAdjustmentBody,
  type PointsAdjustmentFields,
  JOIN_REQUIRED,
  POINTS_ADJUSTMENT_REQUIRED,
} from './schemas.js';
import { type LoyaltyTransaction, toTransaction } from '../../../records/loyalty/transaction.js';
import { recalculateTiers } from '../engine/tiers.js';
import { applyPoints } from '../engine/ledger.js';
import {
  type LoyaltyMembership,
  membershipEvent,
  toMembership,
  type MembershipRow,
} from '../../../records/loyalty/membership.js';

export class LoyaltyMembershipService {
  constructor(private readonly db: Kysely<DB>) {}

  async list(organizationId: string, params: ListParams) {
    return listRecords(this.db, membershipList, organizationId, params, toMembership);
  }

  /**
   * The member activity feed (docs/api.md#member-activity-feed): the caller's filter is checked against the feed's
   * own fields first (so a bad one is 400 naming them), then ANDed with the membership. Another organization's
   * membership is 404 like a missing one.
   */
  async activity(organizationId: string, id: string, params: ListParams) {
    compileFilterParam(memberActivityList, params.filter);
    if (!(await findMembership(this.db, organizationId, id))) throw notFound('The loyalty membership');
    const scope = JSON.stringify({ loyaltyMembershipId: id });
    const filter = params.filter ? `{"$and":[${scope},${params.filter}]}` : scope;
    return listRecords(this.db, scopedMemberActivityList, organizationId, { ...params, filter }, (row: ActivityRow) =>
      toActivityEntry(row),
    );
  }

  async get(organizationId: string, id: string, include?: string): Promise<LoyaltyMembership> {
    return getRecord(this.db, membershipList, organizationId, include, {
      find: () => findMembership(this.db, organizationId, id),
      toRecord: toMembership,
      missing: () => notFound('The loyalty membership'),
    });
  }

  /**
   * A customer joins a program: a new membership (201), or, for one who left, the same membership restored with its
   * balances (200). Either sends loyaltyMembership.created. An active member joining again is 409.
   */
  async join(
    organizationId: string,
    body: JoinBody | undefined,
  ): Promise<{ membership: LoyaltyMembership; created: boolean }> {
    const { fields, path } = unwrapData<JoinFields>(body, 'membership');
    requireFields(fields, JOIN_REQUIRED, path);
    const customerId = fields.customerId!.toLowerCase();
    try {
      return await withFreshReferralCodes(() =>
        this.db.transaction().execute(async (trx) => {
          const program = await resolveProgram(
            trx,
            organizationId,
            fields.loyaltyProgramId,
            `${path}.loyaltyProgramId`,
          );
          if (!(await customerExists(trx, organizationId, customerId))) {
            throw unprocessable(`${path}.customerId names a customer that does not exist in this organization.`, [
              { path: `${path}.customerId`, message: 'no such customer' },
            ]);
          }
          const existing = await lockMembershipOf(trx, organizationId, program.id, customerId);
          if (existing && !existing.left_at)
            throw conflict('The customer is already a member of this loyalty program.');
          let row: MembershipRow;
          if (existing) {
            row = await trx
              .updateTable('loyalty_memberships')
              .set({ left_at: null, updated_at: sql<Date>`now()` })
              .where('organization_id', '=', organizationId)
              .where('id', '=', existing.id)
              .returningAll()
              .executeTakeFirstOrThrow();
          } else {
            [row] = (await insertMemberships(trx, organizationId, [
              { id: uuidv7(), customerId, programId: program.id },
            ])) as [MembershipRow];
          }
          await recordActivity(trx, organizationId, [
            { membershipId: row.id, customerId, type: existing ? 'rejoined' : 'joined' },
          ]);
          await recordEvents(trx, [membershipEvent(organizationId, 'loyaltyMembership.created', row)]);
          return { membership: toMembership(row), created: !existing };
        }),
      );
    } catch (error) {
      // Two joins of the same customer at once: the membership key lets one through.
      if (isUniqueViolation(error)) throw conflict('The customer is already a member of this loyalty program.');
      throw error;
    }
  }

  /**
   * Tier pinning: loyaltyTierId pins that tier; tierAssignedManually true pins the current one; false unpins and
   * recalculates at once. A change of tier sends loyaltyMembership.tierChanged.
   */
  async update(organizationId: string, id: string, body: MembershipPatchBody | undefined): Promise<LoyaltyMembership> {
    const { fields, path } = unwrapData<MembershipPatchFields>(body, 'membership');
    requireSomeField(fields, path);
    if (fields.loyaltyTierId !== undefined && fields.tierAssignedManually === false) {
      throw validationError(
        `Invalid request: ${path}.tierAssignedManually cannot be false when ${path}.loyaltyTierId pins a tier.`,
        [{ path: `${path}.tierAssignedManually`, message: 'must not be false together with loyaltyTierId' }],
      );
    }
    return this.db.transaction().execute(async (trx) => {
      const before = await lockMembership(trx, organizationId, id);
      if (!before) throw notFound('The loyalty membership');
      const events: EventToRecord[] = [];
      if (fields.loyaltyTierId !== undefined) {
        const tierId = fields.loyaltyTierId.toLowerCase();
        const tier = await findTier(trx, organizationId, tierId);
        if (!tier || tier.loyalty_program_id !== before.loyalty_program_id) {
          throw unprocessable(`${path}.loyaltyTierId names no tier of the member's loyalty program.`, [
            { path: `${path}.loyaltyTierId`, message: 'no such tier in this program' },
          ]);
        }
        const row = await pinTier(trx, organizationId, id, tierId, before.loyalty_tier_id !== tierId);
        if (row && before.loyalty_tier_id !== tierId) {
          await recordActivity(trx, organizationId, [
            {
              membershipId: id,
              customerId: row.customer_id,
              type: 'tierChanged',
              tierId,
              data: { fromTierId: before.loyalty_tier_id, toTierId: tierId, pinned: true },
            },
          ]);
          events.push(membershipEvent(organizationId, 'loyaltyMembership.tierChanged', row));
        }
      } else if (fields.tierAssignedManually === true) {
        if (!before.loyalty_tier_id) throw conflict('The member has no tier to pin; name one with loyaltyTierId.');
        await pinTier(trx, organizationId, id, before.loyalty_tier_id, false);
      } else if (fields.tierAssignedManually === false && before.tier_assigned_manually) {
        await trx
          .updateTable('loyalty_memberships')
          .set({ tier_assigned_manually: false, updated_at: sql<Date>`now()` })
          .where('organization_id', '=', organizationId)
          .where('id', '=', id)
          .execute();
        events.push(...(await recalculateTiers(trx, organizationId, { membershipIds: [id] }, 'review')));
      }
      await recordEvents(trx, events);
      return toMembership((await findMembership(trx, organizationId, id))!);
    });
  }

  /** The member leaves: leftAt is set; the row, balance and history stay so that joining again restores them. */
  async leave(organizationId: string, id: string): Promise<LoyaltyMembership> {
    return this.db.transaction().execute(async (trx) => {
      const before = await lockMembership(trx, organizationId, id);
      if (!before) throw notFound('The loyalty membership');
      if (before.left_at) throw conflict('The member has already left the program.');
      const row = await trx
        .updateTable('loyalty_memberships')
        .set({ left_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await recordActivity(trx, organizationId, [{ membershipId: id, customerId: row.customer_id, type: 'left' }]);
      return toMembership(row);
    });
  }

  /** Deletes the membership with its ledger, rewards, stamp cards and feed; sends loyaltyMembership.deleted. */
  async delete(organizationId: string, id: string): Promise<LoyaltyMembership> {
    return this.db.transaction().execute(async (trx) => {
      const row = await deleteMembershipRow(trx, organizationId, id);
      if (!row) throw notFound('The loyalty membership');
      await recordEvents(trx, [membershipEvent(organizationId, 'loyaltyMembership.deleted', row)]);
      return toMembership(row);
    });
  }

  async import(organizationId: string, body: MembershipImportBody) {
    return withFreshReferralCodes(() =>
      this.db.transaction().execute((trx) => importMemberships(trx, organizationId, body)),
    );
  }

  /**
   * POST /loyalty-memberships/{id}/points-adjustments: adds (points > 0) or removes (points < 0) points by hand; the
   * balance never goes below 0 (409). docs/api.md#points-adjustments-and-the-ledger
   */
  async adjustPoints(
    organizationId: string,
    membershipId: string,
    body: PointsAdjustmentBody | undefined,
  ): Promise<LoyaltyTransaction> {
    const { fields, path } = unwrapData<PointsAdjustmentFields>(body, 'points adjustment');
    requireFields(fields, POINTS_ADJUSTMENT_REQUIRED, path);
    if (fields.points === 0) {
      throw validationError(`Invalid request: ${path}.points must not be 0.`, [
        { path: `${path}.points`, message: 'must not be 0' },
      ]);
    }
    return this.db.transaction().execute(async (trx) => {
      const applied = (await applyPoints(trx, {
        organizationId,
        membershipId,
        points: fields.points!,
        kind: 'adjusted',
        reason: fields.reason!,
      }))!;
      await recordEvents(trx, applied.events);
      return toTransaction(applied.transaction);
    });
  }
}

async function pinTier(
  trx: Transaction<DB>,
  organizationId: string,
  id: string,
  tierId: string,
  changed: boolean,
): Promise<MembershipRow | undefined> {
  // Pinning the tier a member is already pinned to writes nothing (docs/api.md#writes-that-change-nothing).
  return updateIfChanged(trx, 'loyalty_memberships', organizationId, id, {
    loyalty_tier_id: tierId,
    tier_assigned_manually: true,
    tier_review_at: null,
    ...(changed ? { tier_attained_at: sql`now()` } : {}),
  });
}
