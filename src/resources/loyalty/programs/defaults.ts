import { uuidv7 } from '../../../util/ids.js';
import type { Executor } from '../../../db/executor.js';

export const DEFAULT_PROGRAM_NAME = 'Loyalty program';

/**
 * Every organization starts with one program (points never expire, rewards never expire, lifetime tiers), so members
 * can join and be imported before anything is configured (docs/api.md#the-default-loyalty-program). Migration 0009 gave
 * existing organizations theirs.
 */
export const insertDefaultProgram = (db: Executor, organizationId: string) =>
  db
    .insertInto('loyalty_programs')
    .values({ organization_id: organizationId, id: uuidv7(), name: DEFAULT_PROGRAM_NAME })
    .returningAll()
    .executeTakeFirstOrThrow();
