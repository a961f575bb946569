import { migrateToLatest } from '../db/engine.js';
import { withCli } from './context.js';
import { print } from './print.js';

/** `patron migrate`: brings the schema up to date and says what it applied. */
export async function migrateCommand(options: { json?: boolean }): Promise<void> {
  await withCli(
    async ({ database }) => {
      const applied = await migrateToLatest(database.db);
      print(options.json, { applied }, applied.length ? `Applied ${applied.join(', ')}` : 'The schema is up to date.');
    },
    { migrate: false },
  );
}
