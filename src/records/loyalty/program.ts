/** The loyalty program record: its response shape, the columns it is read from, the row→record mapping, its events. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { LoyaltyProgramsTable } from '../../db/schema.js';
import type { EventToRecord } from '../../core/event-to-record.js';
import { Metadata, Timestamp, Uuid } from '../common.js';
import { ExpiryOutput } from './reward-object.js';

/**
 * A loyalty program (docs/api.md#loyalty-configuration-records): how points are named and expire, the default reward
 * expiry, the tier window.
 */
export const LoyaltyProgram = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    pointsName: Type.String({ description: 'What members call points, e.g. "stars".' }),
    defaultRewardExpiry: ExpiryOutput,
    pointsExpiry: Type.Object(
      { type: Type.String() },
      { additionalProperties: true, description: 'never | daysAfterEarning { days }.' },
    ),
    tierWindow: Type.Object(
      { type: Type.String() },
      { additionalProperties: true, description: 'lifetime | rolling { months }.' },
    ),
    metadata: Metadata,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'LoyaltyProgram', additionalProperties: false },
);
export type LoyaltyProgram = Static<typeof LoyaltyProgram>;

export type ProgramRow = Selectable<LoyaltyProgramsTable>;

/** The columns toProgram reads. */
export const PROGRAM_COLUMNS = [
  'id',
  'name',
  'points_name',
  'default_reward_expiry',
  'points_expiry_days',
  'tier_window',
  'tier_window_months',
  'metadata',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof ProgramRow)[];
export type LoyaltyProgramFields = Pick<ProgramRow, (typeof PROGRAM_COLUMNS)[number]>;

export const toProgram = (row: LoyaltyProgramFields): LoyaltyProgram => ({
  id: row.id,
  name: row.name,
  pointsName: row.points_name,
  defaultRewardExpiry: row.default_reward_expiry,
  pointsExpiry: (row.points_expiry_days === null
    ? { type: 'never' }
    : { type: 'daysAfterEarning', days: row.points_expiry_days }) as LoyaltyProgram['pointsExpiry'],
  tierWindow: (row.tier_window === 'rolling'
    ? { type: 'rolling', months: row.tier_window_months }
    : { type: 'lifetime' }) as LoyaltyProgram['tierWindow'],
  metadata: row.metadata,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export const programEvent = (organizationId: string, name: string, row: LoyaltyProgramFields): EventToRecord => ({
  organizationId,
  name,
  schema: LoyaltyProgram,
  record: toProgram(row),
});
