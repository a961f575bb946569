import type { RewardExpiryJson } from '../../../db/schema.js';
import { updateIfChanged } from '../../../resource-kit/changes.js';
import type { Executor } from '../../../db/executor.js';

export const lockProgram = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('loyalty_programs')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();

export interface ProgramColumns {
  name?: string;
  points_name?: string;
  default_reward_expiry?: RewardExpiryJson;
  points_expiry_days?: number | null;
  tier_window?: 'lifetime' | 'rolling';
  tier_window_months?: number | null;
  metadata?: Record<string, string>;
}

export const insertProgram = (
  db: Executor,
  organizationId: string,
  id: string,
  columns: ProgramColumns & { name: string },
) =>
  db
    .insertInto('loyalty_programs')
    .values({
      organization_id: organizationId,
      id,
      ...columns,
      ...(columns.default_reward_expiry
        ? { default_reward_expiry: JSON.stringify(columns.default_reward_expiry) }
        : {}),
      ...(columns.metadata ? { metadata: JSON.stringify(columns.metadata) } : {}),
    })
    .returningAll()
    .executeTakeFirstOrThrow();

/** The columns given; undefined when they are the stored ones (nothing written: docs/api.md#writes-that-change-nothing). */
export const updateProgram = (db: Executor, organizationId: string, id: string, columns: ProgramColumns) =>
  updateIfChanged(db, 'loyalty_programs', organizationId, id, { ...columns });

export const deleteProgramRow = (db: Executor, organizationId: string, id: string) =>
  db
    .deleteFrom('loyalty_programs')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();

export const countPrograms = async (db: Executor, organizationId: string) =>
  Number(
    (
      await db
        .selectFrom('loyalty_programs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_id', '=', organizationId)
        .executeTakeFirstOrThrow()
    ).n,
  );

export const countMembershipsOfProgram = async (db: Executor, organizationId: string, programId: string) =>
  Number(
    (
      await db
        .selectFrom('loyalty_memberships')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_id', '=', organizationId)
        .where('loyalty_program_id', '=', programId)
        .executeTakeFirstOrThrow()
    ).n,
  );
