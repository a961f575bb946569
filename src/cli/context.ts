import { loadConfig, type Config } from '../config/index.js';
import { openMigratedDatabase } from '../compose.js';
import type { Database } from '../db/engine.js';
import { lockEmbeddedDatabase } from '../db/embedded-lock.js';

export interface CliContext {
  config: Config;
  database: Database;
  close(): Promise<void>;
}

/** Opens the configured database (locking the embedded one) and brings its schema up to date. */
export async function openCli(): Promise<CliContext> {
  const config = loadConfig();
  const unlock = config.databaseUrl ? async () => {} : await lockEmbeddedDatabase(config.dataDir);
  let database: Database;
  try {
    database = await openMigratedDatabase(config);
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

export async function withCli<T>(action: (context: CliContext) => Promise<T>): Promise<T> {
  const context = await openCli();
  try {
    return await action(context);
  } finally {
    await context.close();
  }
}
