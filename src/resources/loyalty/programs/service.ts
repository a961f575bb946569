import { sql, type Kysely, type Transaction } from 'kysely';
import { uuidv7 } from '../../../util/ids.js';
import type { DB } from '../../../db/schema.js';
import { recordEvents } from '../../../events/outbox.js';
import type { Cascade } from '../../../core/cascades.js';
import { conflict, notFound } from '../../../core/errors.js';
import { listRecords } from '../../../lists/engine.js';
import type { ListParams } from '../../../lists/query.js';
import { unwrapData } from '../../../resource-kit/body.js';
import { requireFields, requireSomeField } from '../body.js';
import { normalizeExpiry } from '../engine/reward-object-rules.js';
import { findProgram } from '../engine/programs.js';
import { programList } from './list.js';
import {
  countMembershipsOfProgram,
  countPrograms,
  deleteProgramRow,
  insertProgram,
  lockProgram,
  updateProgram,
  type ProgramColumns,
} from './queries.js';
import type { ProgramBody, ProgramFields } from './schemas.js';
import { isForeignKeyViolation } from '../../../db/errors.js';
import { type LoyaltyProgram, programEvent, type ProgramRow, toProgram } from '../../../records/loyalty/program.js';
import { PROGRAM_REQUIRED } from './schemas.js';

function toColumns(fields: ProgramFields): ProgramColumns {
  return {
    ...(fields.name !== undefined ? { name: fields.name } : {}),
    ...(fields.pointsName !== undefined ? { points_name: fields.pointsName } : {}),
    ...(fields.defaultRewardExpiry !== undefined
      ? { default_reward_expiry: normalizeExpiry(fields.defaultRewardExpiry) }
      : {}),
    ...(fields.pointsExpiry !== undefined
      ? { points_expiry_days: fields.pointsExpiry.type === 'daysAfterEarning' ? fields.pointsExpiry.days : null }
      : {}),
    ...(fields.tierWindow !== undefined
      ? {
          tier_window: fields.tierWindow.type,
          tier_window_months: fields.tierWindow.type === 'rolling' ? fields.tierWindow.months : null,
        }
      : {}),
    ...(fields.metadata !== undefined ? { metadata: fields.metadata } : {}),
  };
}

/**
 * A changed tier window moves every automatically tiered member's next review: a rolling window reviews them one
 * window from now (a grace period, not an instant downgrade); a lifetime window has no reviews.
 */
async function rescheduleReviews(trx: Transaction<DB>, organizationId: string, program: ProgramRow): Promise<void> {
  await trx
    .updateTable('loyalty_memberships')
    .set({
      tier_review_at:
        program.tier_window === 'rolling'
          ? sql<Date>`now() + make_interval(months => ${program.tier_window_months}::int)`
          : null,
    })
    .where('organization_id', '=', organizationId)
    .where('loyalty_program_id', '=', program.id)
    .where('loyalty_tier_id', 'is not', null)
    .where('tier_assigned_manually', '=', false)
    .execute();
}

export class LoyaltyProgramService {
  constructor(
    private readonly db: Kysely<DB>,
    /** What deleting a program does to the rows other resources hold under it (docs/architecture.md#declared-cascades). */
    private readonly cascade: Cascade,
  ) {}

  async list(organizationId: string, params: ListParams) {
    return listRecords(this.db, programList, organizationId, params, toProgram);
  }

  async get(organizationId: string, id: string): Promise<LoyaltyProgram> {
    const row = await findProgram(this.db, organizationId, id);
    if (!row) throw notFound('The loyalty program');
    return toProgram(row);
  }

  async create(organizationId: string, body: ProgramBody | undefined): Promise<LoyaltyProgram> {
    const { fields, path } = unwrapData<ProgramFields>(body, 'loyalty program');
    requireFields(fields, PROGRAM_REQUIRED, path);
    return this.db.transaction().execute(async (trx) => {
      const row = await insertProgram(trx, organizationId, uuidv7(), { ...toColumns(fields), name: fields.name! });
      await recordEvents(trx, [programEvent(organizationId, 'loyaltyProgram.created', row)]);
      return toProgram(row);
    });
  }

  async update(organizationId: string, id: string, body: ProgramBody | undefined): Promise<LoyaltyProgram> {
    const { fields, path } = unwrapData<ProgramFields>(body, 'loyalty program');
    requireSomeField(fields, path);
    return this.db.transaction().execute(async (trx) => {
      const before = await lockProgram(trx, organizationId, id);
      if (!before) throw notFound('The loyalty program');
      const row = await updateProgram(trx, organizationId, id, toColumns(fields));
      // A PATCH that changes nothing sends nothing (docs/api.md#writes-that-change-nothing).
      if (!row) return toProgram(before);
      if (row.tier_window !== before.tier_window || row.tier_window_months !== before.tier_window_months) {
        await rescheduleReviews(trx, organizationId, row);
      }
      await recordEvents(trx, [programEvent(organizationId, 'loyaltyProgram.updated', row)]);
      return toProgram(row);
    });
  }

  /**
   * Deletes a program with its tiers and rules. A program with members stays (409: delete or move them first), and so
   * does the organization's last program: there is always one to join (docs/api.md#loyalty-configuration-records).
   */
  async delete(organizationId: string, id: string): Promise<LoyaltyProgram> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        if (!(await lockProgram(trx, organizationId, id))) throw notFound('The loyalty program');
        const members = await countMembershipsOfProgram(trx, organizationId, id);
        if (members > 0) {
          throw conflict(
            `The loyalty program has ${members} member${members === 1 ? '' : 's'}; delete their memberships first.`,
          );
        }
        if ((await countPrograms(trx, organizationId)) === 1) {
          throw conflict("This is the organization's only loyalty program; create another before deleting it.");
        }
        // Its tiers and rules go by their foreign keys; other resources' rows under it, by the declared cascade.
        const cascade = await this.cascade(trx, organizationId, id);
        const row = (await deleteProgramRow(trx, organizationId, id))!;
        await cascade.parentDeleted();
        await recordEvents(trx, [
          ...cascade.eventsBefore,
          programEvent(organizationId, 'loyaltyProgram.deleted', row),
          ...cascade.eventsAfter,
        ]);
        return toProgram(row);
      });
    } catch (error) {
      // A member who joined between the count and the delete: the foreign key keeps the program.
      if (isForeignKeyViolation(error))
        throw conflict('The loyalty program gained members while being deleted; delete their memberships first.');
      throw error;
    }
  }
}
