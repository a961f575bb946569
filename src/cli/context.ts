import { loadConfig, type Config } from '../config/index.js';
import { migrateToLatest, openDatabase, type Database } from '../db/engine.js';
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
  let database: Database | undefined;
  try {
    database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    if (options.migrate !== false) await migrateToLatest(database.db);
  } catch (error) {
    await database?.close();
    await unlock();
    throw error;
  }
  const opened = database;
  return {
    config,
    database: opened,
    close: async () => {
      await opened.close();
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
