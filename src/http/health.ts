import type { Database } from '../db/engine.js';
import { ApiError } from '../core/errors.js';
import type { PatronApp } from '../core/types.js';

const READINESS_TIMEOUT_MS = 2_000;

export function registerHealth(app: PatronApp, database: Database): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async () => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        database.ping(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('database ping timed out')), READINESS_TIMEOUT_MS);
        }),
      ]);
    } catch (error) {
      // The cause makes the refusal part of the outage log (one line when it starts), not a line per probe.
      throw Object.assign(
        new ApiError('SERVICE_UNAVAILABLE', 'The database is not reachable.', undefined, { 'retry-after': '5' }),
        { cause: error },
      );
    } finally {
      clearTimeout(timer);
    }
    return { status: 'ready', database: database.engine };
  });
}
