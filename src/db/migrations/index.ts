import { readdir } from 'node:fs/promises';
import type { Migration, MigrationProvider } from 'kysely';

/**
 * The migrations are the files of this folder, named `NNNN_<what>.ts`, discovered at run time (the same from src
 * under tsx and vitest as from dist/ under node), so adding one touches nothing else. This file, declarations and
 * source maps are not migrations. The build removes compiled files whose source is gone
 * (`scripts/prune-stale-build.mjs`): tsc never deletes them, and a stale one here would still be applied.
 */
const FOLDER = new URL('./', import.meta.url);
const MIGRATION_FILE = /^\d{4}_[a-z0-9_]+\.(?:ts|js)$/;

const migrationFiles = async (): Promise<string[]> =>
  (await readdir(FOLDER)).filter((file) => MIGRATION_FILE.test(file)).sort();

const nameOf = (file: string): string => file.replace(/\.(?:ts|js)$/, '');

/** The migrations' names (file names without their extension), in name order. Reads the folder only. */
export async function migrationNames(): Promise<string[]> {
  return (await migrationFiles()).map(nameOf);
}

export const migrationProvider: MigrationProvider = {
  async getMigrations(): Promise<Record<string, Migration>> {
    const migrations: Record<string, Migration> = {};
    for (const file of await migrationFiles()) {
      // Imported by the file's own name: `.ts` under tsx and vitest, `.js` in the build.
      migrations[nameOf(file)] = (await import(new URL(file, FOLDER).href)) as Migration;
    }
    return migrations;
  },
};
