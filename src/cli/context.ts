import { setFlagsFromString } from 'node:v8';
import { loadConfig, type Config } from '../config/index.js';
import { migrateToLatest, openDatabase, type Database } from '../db/engine.js';
import { lockEmbeddedDatabase } from '../db/embedded-lock.js';

export interface CliContext {
  config: Config;
  database: Database;
  close(): Promise<void>;
}

export interface CliOptions {
  /** false: open the database as it is (`patron migrate` migrates itself). */
  migrate?: boolean;
  /**
   * A command that reads or writes a few rows and exits: on the embedded engine, V8 then runs PGlite's WebAssembly
   * with its baseline compiler only. Otherwise most of such a command's CPU goes to optimizing that code in the
   * background for a process that ends a moment later (a third of `patron org list`'s, bench/cli-start.ts); commands
   * that work the database hard (org delete, jobs run, seed) keep the optimizing tier.
   */
  brief?: boolean;
}

/** Opens the configured database (locking the embedded one) and, unless told not to, brings its schema up to date. */
export async function openCli(options: CliOptions = {}): Promise<CliContext> {
  const config = loadConfig();
  if (options.brief && !config.databaseUrl) setFlagsFromString('--liftoff-only');
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

export async function withCli<T>(action: (context: CliContext) => Promise<T>, options: CliOptions = {}): Promise<T> {
  const context = await openCli(options);
  try {
    return await action(context);
  } finally {
    await context.close();
  }
}
