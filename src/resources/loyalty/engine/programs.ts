/** Finding a loyalty program: by id, or the one a request means (docs/api.md#the-default-loyalty-program). */
import { unprocessable, validationError } from '../../../core/errors.js';
import type { Executor } from '../../../db/executor.js';
import type { ProgramRow } from '../../../records/loyalty/program.js';

export const findProgram = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('loyalty_programs')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

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
