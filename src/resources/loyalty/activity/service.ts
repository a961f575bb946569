import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.js';
import { recordEvents } from '../../../events/outbox.js';
import { validationError } from '../../../http/errors.js';
import { listPage, withIncludes } from '../../../lists/engine.js';
import type { ListParams } from '../../../lists/query.js';
import { unwrapData } from '../../../resource-kit/body.js';
import { requireFields } from '../body.js';
import { applyPoints } from '../engine/ledger.js';
import { activityList } from './list.js';
import { type PointsAdjustmentBody, type PointsAdjustmentFields } from './schemas.js';
import { type LoyaltyTransaction, toTransaction, type TransactionRow } from '../../../records/loyalty/transaction.js';

export class LoyaltyPointsService {
  constructor(private readonly db: Kysely<DB>) {}

  async activity(organizationId: string, params: ListParams) {
    const page = await listPage<TransactionRow>(this.db, activityList, organizationId, params);
    return {
      data: page.rows.map((row) => withIncludes(activityList, toTransaction(row), row.id, page.includes)),
      nextCursor: page.nextCursor,
    };
  }

  /** D31: adds (points > 0) or removes (points < 0) points by hand; the balance never goes below 0 (409). */
  async adjust(
    organizationId: string,
    membershipId: string,
    body: PointsAdjustmentBody | undefined,
  ): Promise<LoyaltyTransaction> {
    const { fields, path } = unwrapData<PointsAdjustmentFields>(body, 'points adjustment');
    requireFields(fields, ['points', 'reason'], path);
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
