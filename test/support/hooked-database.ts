import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';

/**
 * The database, with a hook before the n-th transaction begins (counting from 1), for a job run: its first transaction
 * claims the job, each later one commits a batch or a page. The hook may throw (a crash before that commit) or act
 * first (a cancel arriving meanwhile).
 */
export function hooked(target: Kysely<DB>, before: (n: number) => Promise<void>): Kysely<DB> {
  let calls = 0;
  return new Proxy(target, {
    get(object, property) {
      if (property === 'transaction') {
        return () => {
          const real = object.transaction();
          const n = ++calls;
          return {
            execute: async (callback: Parameters<typeof real.execute>[0]) => {
              await before(n);
              return real.execute(callback);
            },
          };
        };
      }
      const value = Reflect.get(object, property, object) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(object) : value;
    },
  });
}
