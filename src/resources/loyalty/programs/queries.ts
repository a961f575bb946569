import type { RewardExpiryJson } from '../../../db/schema.js';
import { unprocessable, validationError } from '../../../http/errors.js';
import { updateIfChanged } from '../../../resource-kit/changes.js';
import type { Executor } from '../../../db/executor.js';
import type { ProgramRow } from '../../../records/loyalty/program.js';

export const findProgram = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('loyalty_programs')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

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
  updateIfChanged(db, { table: 'loyalty_programs', organizationId, id }, { ...columns });

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

/**
 * The program a request means (docs/api.md#the-default-loyalty-program): the one named, or the organization's only
 * program when none is named. A named program that does not exist is 422 (a reference to something missing); leaving it
 * out while there are several is 400 naming the field.
 */
export async function resolveProgram(
  db: Executor,
  organizationId: string,
  programId: string | undefined,
  path: string,
): Promise<ProgramRow> {
  if (programId !== undefined) {
    const row = await findProgram(db, organizationId, programId);
    if (!row)
      throw unprocessable(`${path} names a loyalty program that does not exist in this organization.`, [
        { path, message: 'no such loyalty program' },
      ]);
    return row;
  }
  const rows = await db
    .selectFrom('loyalty_programs')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .limit(2)
    .execute();
  if (rows.length === 1) return rows[0]!;
  if (rows.length === 0) {
    throw unprocessable('This organization has no loyalty program; create one with POST /v1/loyalty-programs.', [
      { path, message: 'no loyalty program exists' },
    ]);
  }
  throw validationError(
    `Invalid request: ${path} is required when the organization has more than one loyalty program.`,
    [{ path, message: 'is required when there are several programs' }],
  );
}
