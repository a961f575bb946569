import { createInterface } from 'node:readline/promises';
import { liveOrganization } from '../operator.js';
import { deleteOrganization, tenantTables } from '../db/organization-delete.js';
import { withCli } from './context.js';

export interface OrgDeleteOptions {
  yes?: boolean;
  json?: boolean;
}

/**
 * `patron org delete <id> [--yes] [--json]`: deletes an organization and every row it owns, in every table that has
 * an organization_id (docs/api.md#deleting-an-organization). Asks for the organization's name or id on a terminal;
 * without one it needs --yes. Prints the rows removed per table.
 */
export async function deleteOrganizationCommand(id: string, options: OrgDeleteOptions): Promise<void> {
  // Refused before the database opens: a script that forgot --yes changes nothing and waits for no one.
  if (!options.yes && !process.stdin.isTTY) {
    throw new Error(
      'Refusing to delete an organization without confirmation: stdin is not a terminal. Pass --yes to delete from a script.',
    );
  }
  await withCli(async ({ config, database }) => {
    // A twin goes with its live organization (docs/api.md#test-mode), never alone.
    const organization = await liveOrganization(database.db, id);
    const tables = await tenantTables(database.db);
    if (!options.yes) {
      process.stderr.write(
        `This deletes the organization "${organization.name}" (${organization.id}) and every row it owns in ` +
          `${tables.length} tables, and its test data: its keys, store data, loyalty, reviews, webhooks, events and jobs. It cannot be undone.\n`,
      );
      const answer = await ask(`Type the organization's name or id to confirm: `);
      if (answer !== organization.name && answer.toLowerCase() !== organization.id) {
        throw new Error('Not confirmed: the answer is neither the name nor the id. Nothing was deleted.');
      }
    }
    const started = performance.now();
    const deleted = await deleteOrganization(database.db, organization.id, {
      batchRows: config.retention.batchRows,
      onTable: options.json
        ? undefined
        : (table, count) => {
            if (count > 0) process.stderr.write(`  ${table}: ${count}\n`);
          },
    });
    const seconds = (performance.now() - started) / 1000;
    const total = Object.values(deleted).reduce((sum, count) => sum + count, 0);
    if (options.json) {
      process.stdout.write(
        JSON.stringify({ id: organization.id, name: organization.name, deleted, total, seconds }) + '\n',
      );
      return;
    }
    const width = Math.max(...Object.keys(deleted).map((table) => table.length));
    const lines = Object.entries(deleted)
      .filter(([, count]) => count > 0)
      .map(([table, count]) => `  ${table.padEnd(width)}  ${String(count).padStart(9)}`);
    const empty = Object.entries(deleted)
      .filter(([, count]) => count === 0)
      .map(([table]) => table);
    process.stdout.write(
      [
        `Deleted the organization "${organization.name}" (${organization.id}): ${total} rows in ${seconds.toFixed(1)} s.`,
        ...lines,
        ...(empty.length ? [`  No rows in: ${empty.join(', ')}.`] : []),
      ].join('\n') + '\n',
    );
  });
}

async function ask(question: string): Promise<string> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await prompt.question(question)).trim();
  } finally {
    prompt.close();
  }
}
