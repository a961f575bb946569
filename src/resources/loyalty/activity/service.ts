import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../db/schema.js';
import { recordEvents } from '../../../events/outbox.js';
import { compileSelection, listRecords } from '../../../lists/engine.js';
import type { ListParams, SelectionParams } from '../../../lists/query.js';
import { expireCredits } from '../engine/ledger.js';
import { activityList } from './list.js';
import type { BulkExpireBody } from './schemas.js';
import { toTransaction } from '../../../records/loyalty/transaction.js';

export class LoyaltyActivityService {
  constructor(private readonly db: Kysely<DB>) {}

  async activity(organizationId: string, params: ListParams) {
    return listRecords(this.db, { list: activityList, organizationId, params, toRecord: toTransaction });
  }

  /**
   * POST /loyalty-activity/bulk-expire: what is left of the credits the filter and search select (the GET
   * /loyalty-activity list's) lapses, one `expired` entry per member, in one transaction.
   */
  async bulkExpire(organizationId: string, selection: SelectionParams, body: BulkExpireBody | undefined) {
    const compiled = compileSelection(activityList, organizationId, selection);
    return this.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ id: string; loyalty_membership_id: string }>`
        select t.id, t.loyalty_membership_id from ${sql.raw(activityList.from)} ${compiled.joins}
        where ${compiled.where} and t.remaining > 0`.execute(trx);
      if (rows.length === 0) return { count: 0, points: 0 };
      const members = [...new Set(rows.map((row) => row.loyalty_membership_id))];
      const expired = await expireCredits(trx, organizationId, members, {
        credits: sql`t.id = any(${rows.map((row) => row.id)}::uuid[])`,
        reason: body?.reason ?? 'Expired in bulk',
      });
      await recordEvents(trx, expired.events);
      return {
        count: expired.transactions.length,
        points: expired.transactions.reduce((sum, row) => sum - row.points, 0),
      };
    });
  }
}
