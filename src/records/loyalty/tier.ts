/** The loyalty tier record: its response shape, the columns it is read from, the row→record mapping, its events. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { LoyaltyTiersTable } from '../../db/schema.js';
import type { EventToRecord } from '../../core/event-to-record.js';
import { Metadata, Timestamp, Uuid } from '../common.js';

/**
 * A tier of a program (docs/api.md#loyalty-configuration-records): members whose qualifying points reach
 * thresholdPoints hold it.
 */
export const LoyaltyTier = Type.Object(
  {
    id: Uuid,
    loyaltyProgramId: Uuid,
    name: Type.String(),
    thresholdPoints: Type.Integer({ minimum: 0, description: 'Qualifying points needed; unique within the program.' }),
    position: Type.Integer({ description: 'Display order.' }),
    metadata: Metadata,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'LoyaltyTier', additionalProperties: false },
);
export type LoyaltyTier = Static<typeof LoyaltyTier>;

export type TierRow = Selectable<LoyaltyTiersTable>;

/** The columns toTier reads. */
export const TIER_COLUMNS = [
  'id',
  'loyalty_program_id',
  'name',
  'threshold_points',
  'position',
  'metadata',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof TierRow)[];
export type LoyaltyTierFields = Pick<TierRow, (typeof TIER_COLUMNS)[number]>;

export const toTier = (row: LoyaltyTierFields): LoyaltyTier => ({
  id: row.id,
  loyaltyProgramId: row.loyalty_program_id,
  name: row.name,
  thresholdPoints: row.threshold_points,
  position: row.position,
  metadata: row.metadata,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export const tierEvent = (organizationId: string, name: string, row: LoyaltyTierFields): EventToRecord => ({
  organizationId,
  name,
  schema: LoyaltyTier,
  record: toTier(row),
});
