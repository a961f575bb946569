import { sql, type Kysely } from 'kysely';
import { uuidv7 } from '../../../util/ids.js';
import { isUniqueViolation, isForeignKeyViolation } from '../../../db/errors.js';
import type { DB } from '../../../db/schema.js';
import { recordEvents } from '../../../events/outbox.js';
import { conflict, notFound, validationError } from '../../../core/errors.js';
import { listRecords } from '../../../lists/engine.js';
import type { ListParams } from '../../../lists/query.js';
import { updateIfChanged } from '../../../resource-kit/changes.js';
import { unwrapData } from '../../../resource-kit/body.js';
import { requireFields, requireSomeField } from '../body.js';
import { recalculateTiers } from '../engine/tiers.js';
import { resolveProgram } from '../engine/programs.js';
import { tierList } from './list.js';
import type { TierBody, TierFields } from './schemas.js';
import { type LoyaltyTier, tierEvent, toTier } from '../../../records/loyalty/tier.js';
import { MAX_POSITION, TIER_REQUIRED } from './schemas.js';

const thresholdTaken = (threshold: number | undefined) =>
  conflict(`The program already has a tier at ${threshold} points; thresholds are unique within a program.`);

export class LoyaltyTierService {
  constructor(private readonly db: Kysely<DB>) {}

  private find(organizationId: string, id: string) {
    return this.db
      .selectFrom('loyalty_tiers')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  async list(organizationId: string, params: ListParams) {
    return listRecords(this.db, { list: tierList, organizationId, params, toRecord: toTier });
  }

  async get(organizationId: string, id: string): Promise<LoyaltyTier> {
    const row = await this.find(organizationId, id);
    if (!row) throw notFound('The loyalty tier');
    return toTier(row);
  }

  /** A new tier applies at once: the program's unpinned members are recalculated (loyaltyMembership.tierChanged). */
  async create(organizationId: string, body: TierBody | undefined): Promise<LoyaltyTier> {
    const { fields, path } = unwrapData<TierFields>(body, 'loyalty tier');
    requireFields(fields, TIER_REQUIRED, path);
    try {
      return await this.db.transaction().execute(async (trx) => {
        const program = await resolveProgram(
          trx,
          organizationId,
          fields.loyaltyProgramId?.toLowerCase(),
          `${path}.loyaltyProgramId`,
        );
        const row = await trx
          .insertInto('loyalty_tiers')
          .values({
            organization_id: organizationId,
            id: uuidv7(),
            loyalty_program_id: program.id,
            name: fields.name!,
            threshold_points: fields.thresholdPoints!,
            // Without one, after the program's tiers (docs/api.md#api-versions: before 2026-12-07, 0).
            position:
              fields.position ??
              sql<number>`(select least(coalesce(max(position) + 1, 0), ${MAX_POSITION}) from loyalty_tiers
                where organization_id = ${organizationId} and loyalty_program_id = ${program.id})`,
            ...(fields.metadata !== undefined ? { metadata: JSON.stringify(fields.metadata) } : {}),
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        const moved = await recalculateTiers(trx, organizationId, { programId: program.id }, 'full');
        await recordEvents(trx, [tierEvent(organizationId, 'loyaltyTier.created', row), ...moved]);
        return toTier(row);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw thresholdTaken(fields.thresholdPoints);
      throw error;
    }
  }

  /** A changed threshold applies at once to the program's unpinned members. The program cannot change. */
  async update(organizationId: string, id: string, body: TierBody | undefined): Promise<LoyaltyTier> {
    const { fields, path } = unwrapData<TierFields>(body, 'loyalty tier');
    requireSomeField(fields, path);
    if (fields.loyaltyProgramId !== undefined) {
      throw validationError(
        `Invalid request: ${path}.loyaltyProgramId cannot change; create a tier in the other program instead.`,
        [{ path: `${path}.loyaltyProgramId`, message: 'cannot be changed' }],
      );
    }
    try {
      return await this.db.transaction().execute(async (trx) => {
        const before = await trx
          .selectFrom('loyalty_tiers')
          .selectAll()
          .where('organization_id', '=', organizationId)
          .where('id', '=', id)
          .forUpdate()
          .executeTakeFirst();
        if (!before) throw notFound('The loyalty tier');
        const row = await updateIfChanged(
          trx,
          { table: 'loyalty_tiers', organizationId, id },
          {
            name: fields.name,
            threshold_points: fields.thresholdPoints,
            position: fields.position,
            metadata: fields.metadata,
          },
        );
        // A PATCH that changes nothing sends nothing (docs/api.md#writes-that-change-nothing).
        if (!row) return toTier(before);
        const moved =
          row.threshold_points !== before.threshold_points
            ? await recalculateTiers(trx, organizationId, { programId: row.loyalty_program_id }, 'full')
            : [];
        await recordEvents(trx, [tierEvent(organizationId, 'loyaltyTier.updated', row), ...moved]);
        return toTier(row);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw thresholdTaken(fields.thresholdPoints);
      throw error;
    }
  }

  /** A tier that members hold stays (409): move them first (pin another tier, or change thresholds). */
  async delete(organizationId: string, id: string): Promise<LoyaltyTier> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const holders = await trx
          .selectFrom('loyalty_memberships')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('organization_id', '=', organizationId)
          .where('loyalty_tier_id', '=', id)
          .executeTakeFirstOrThrow();
        const row = await trx
          .deleteFrom('loyalty_tiers')
          .where('organization_id', '=', organizationId)
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirst();
        if (!row) throw notFound('The loyalty tier');
        if (Number(holders.n) > 0)
          throw conflict(
            `${holders.n} member${Number(holders.n) === 1 ? ' holds' : 's hold'} this tier; move them to another tier first.`,
          );
        await recordEvents(trx, [tierEvent(organizationId, 'loyaltyTier.deleted', row)]);
        return toTier(row);
      });
    } catch (error) {
      if (isForeignKeyViolation(error)) throw conflict('Members hold this tier; move them to another tier first.');
      throw error;
    }
  }
}
