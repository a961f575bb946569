import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../db/engine.js';
import type { DB } from '../db/schema.js';
import type { Logger } from '../util/logger.js';

/** How often a process renews its row in server_processes. */
export const PRESENCE_RENEW_MS = 5_000;
/** A process that has not renewed its row for this long is known gone (docs/api.md#idempotency-keys). */
export const PRESENCE_GONE_AFTER_SECONDS = 30;
/** Rows of processes gone this long are removed, so the table stays as small as the processes alive. */
const FORGET_AFTER_HOURS = 24;

export interface ProcessPresence {
  /** This process's id in server_processes. */
  readonly id: string;
  close(): Promise<void>;
}

/**
 * Keeps this process's row in server_processes alive while it serves. Work it claims (an Idempotency-Key in
 * progress) names it, so another process can tell a claim that is still being worked on from one whose process
 * died. On the embedded database the data directory belongs to one process (the embedded lock), so every row left
 * from an earlier run is a process known gone, and is forgotten at once.
 */
export function startPresence(db: Kysely<DB>, engine: Engine, log: Logger): ProcessPresence {
  const id = `${hostname()}:${process.pid}:${randomUUID()}`;
  const renew = () =>
    sql`insert into server_processes (id) values (${id})
      on conflict (id) do update set renewed_at = now()`.execute(db);
  let failing = false;
  let renewals = 0;
  const timer = setInterval(() => {
    renew()
      .then(async () => {
        if (failing) log.info({}, 'renewing this process in server_processes again');
        failing = false;
        // Now and then, forget processes long gone.
        if (++renewals % 60 === 1)
          await db
            .deleteFrom('server_processes')
            .where('renewed_at', '<', sql<Date>`now() - make_interval(hours => ${FORGET_AFTER_HOURS})`)
            .execute();
      })
      .catch((error: unknown) => {
        // Logged once per outage: the database being down is already logged by whoever meets it first.
        if (!failing) log.warn({ err: error }, 'could not renew this process in server_processes');
        failing = true;
      });
  }, PRESENCE_RENEW_MS);
  timer.unref();
  // Not awaited: a process starts (and answers 503) while its database is down; the timer keeps trying.
  const forgetEarlierRuns = engine === 'pglite' ? db.deleteFrom('server_processes').execute() : Promise.resolve();
  const started = forgetEarlierRuns.then(renew).catch((error: unknown) => {
    failing = true;
    log.warn({ err: error }, 'could not record this process in server_processes');
  });
  return {
    id,
    async close() {
      clearInterval(timer);
      await started;
      // Gone for certain: its claims can be taken over at once.
      await db
        .deleteFrom('server_processes')
        .where('id', '=', id)
        .execute()
        .catch(() => undefined);
    },
  };
}
