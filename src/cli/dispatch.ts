import closeWithGrace from 'close-with-grace';
import { pino } from 'pino';
import { loadConfig } from '../config/index.js';
import { resolveSecretKey } from '../config/secrets.js';
import { openMigratedDatabase } from '../compose.js';
import { startDispatcher } from '../jobs/dispatcher/dispatcher.js';

const SHUTDOWN_GRACE_MS = 10_000;

/**
 * `patron dispatch`: only the webhook dispatcher, for deployments that run it apart from the API or run several.
 * PostgreSQL only: the embedded database belongs to one process, and `patron serve` already dispatches from it.
 */
export async function dispatch(): Promise<void> {
  const config = loadConfig();
  if (!config.databaseUrl) {
    throw new Error(
      'dispatch needs DATABASE_URL (PostgreSQL). With the embedded database, `patron serve` already delivers webhooks; ' +
        'the embedded database belongs to that one process.',
    );
  }
  config.secretKey = (await resolveSecretKey(config.secretKey, config.dataDir)).key;
  const logger = pino({ level: config.logLevel });
  const database = await openMigratedDatabase(config);
  const dispatcher = startDispatcher({ database, config, logger });
  closeWithGrace({ delay: SHUTDOWN_GRACE_MS }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'shutting down after an unexpected error');
    else logger.info({ signal }, 'shutting down: finishing in-flight deliveries');
    await dispatcher.stop();
    await database.close();
  });
}
