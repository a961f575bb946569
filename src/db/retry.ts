import { Kysely, type TransactionBuilder } from 'kysely';
import { isStalePreparedStatement, isTransientConflict } from './errors.js';

/** Runs of one transaction that keeps losing to concurrent ones before its error is let through. */
const MAX_ATTEMPTS = 5;

const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));

/**
 * Kysely whose `transaction().execute(callback)` runs the callback again when PostgreSQL aborts the transaction as
 * a deadlock victim (40P01) or a serialization failure (40001). The whole transaction was rolled back, so a fresh
 * run is safe, and it is what PostgreSQL expects of its clients: two requests writing the same rows in different
 * orders (an import and a bulk update of the same orders) then both succeed instead of one answering 500. A
 * transaction's callback must therefore keep effects outside the database out of it (DEVELOPERS.md). The same goes for
 * a prepared statement that a migration made stale mid-transaction: the run after is prepared afresh
 * (docs/api.md#upgrades-while-serving).
 */
export class RetryingKysely<DB> extends Kysely<DB> {
  override transaction(): TransactionBuilder<DB> {
    return retrying(super.transaction());
  }
}

function retrying<DB>(builder: TransactionBuilder<DB>): TransactionBuilder<DB> {
  return new Proxy(builder, {
    get(target, property) {
      if (property === 'execute') {
        return async <T>(callback: Parameters<TransactionBuilder<DB>['execute']>[0]): Promise<T> => {
          for (let attempt = 1; ; attempt++) {
            try {
              return (await target.execute(callback)) as T;
            } catch (error) {
              if (attempt >= MAX_ATTEMPTS || !(isTransientConflict(error) || isStalePreparedStatement(error)))
                throw error;
              await pause(attempt);
            }
          }
        };
      }
      if (property === 'setIsolationLevel' || property === 'setAccessMode') {
        return (value: never) => retrying(target[property](value));
      }
      const value: unknown = Reflect.get(target, property, target);
      // TransactionBuilder keeps its state in private fields: its methods must run on the builder itself.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
