import type { Migration, MigrationProvider } from 'kysely';
import * as platform from './0001_platform.js';

/** Migrations are listed in code (not read from a folder) so the same set runs from src under tsx and from dist. */
const migrations: Record<string, Migration> = {
  '0001_platform': platform,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
