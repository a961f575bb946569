import { loadConfig, type Config } from '../config/index.js';
import { openMigratedDatabase } from '../compose.js';
import { openDatabase, type Database } from '../db/engine.js';
import { lockEmbeddedDatabase } from '../db/embedded-lock.js';

export interface CliContext {
  config: Config;
  database: Database;
  close(): Promise<void>;
}

/** Opens the configured database (locking the embedded one) and, unless told not to, brings its schema up to date. */
export async function openCli(options: { migrate?: boolean } = {}): Promise<CliContext> {
  const config = loadConfig();
  const unlock = config.databaseUrl ? async () => {} : await lockEmbeddedDatabase(config.dataDir);
  let database: Database;
  try {
    database =
      options.migrate === false
        ? await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
        : await openMigratedDatabase(config);
  } catch (error) {
    await unlock();
    throw error;
  }
  return {
    config,
    database,
    close: async () => {
      await database.close();
      await unlock();
    },
  };
}

export async function withCli<T>(
  action: (context: CliContext) => Promise<T>,
  options: { migrate?: boolean } = {},
): Promise<T> {
  const context = await openCli(options);
  try {
    return await action(context);
  } finally {
    await context.close();
  }
}
