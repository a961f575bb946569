import { createKey, listKeys, revokeKey } from '../auth/keys.js';
import { parsePermissionList } from '../auth/permissions.js';
import { allOrganizations } from '../operator.js';
import { cliAudited } from './audit.js';
import { withCli } from './context.js';
import { print } from './print.js';

/** `patron key create`: `catalog` is every permission a key can be granted (the composition root's). */
export async function createKeyCommand(
  options: { org: string; permissions: string; name?: string; json?: boolean },
  catalog: readonly string[],
): Promise<void> {
  const permissions = parsePermissionList(options.permissions, catalog);
  await withCli(
    async ({ database }) => {
      const organizations = await allOrganizations(database.db);
      if (!organizations.some((o) => o.id === options.org))
        throw new Error(`No organization has the id ${options.org}.`);
      const created = await cliAudited(options.org, 'key create', { type: 'keys', id: null }, () =>
        createKey(database.db, { organizationId: options.org, permissions, name: options.name }),
      );
      print(
        options.json,
        { id: created.record.id, key: created.key, permissions: created.record.permissions },
        `Created key ${created.record.id} with ${permissions.join(', ')}:\n  ${created.key}\nIt is shown only now.`,
      );
    },
    { brief: true },
  );
}

/** `patron key list`: never the secrets. */
export async function listKeysCommand(options: { org: string; json?: boolean }): Promise<void> {
  await withCli(
    async ({ database }) => {
      const keys = await listKeys(database.db, options.org);
      print(
        options.json,
        { data: keys },
        keys.length
          ? keys
              .map(
                (k) =>
                  `${k.id}  ${k.prefix}…  ${k.permissions.join(',')}  ${k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active'}${k.name ? `  (${k.name})` : ''}`,
              )
              .join('\n')
          : 'This organization has no keys.',
      );
    },
    { brief: true },
  );
}

/** `patron key revoke`. */
export async function revokeKeyCommand(id: string, options: { json?: boolean }): Promise<void> {
  await withCli(
    async ({ database }) => {
      const owner = await database.db
        .selectFrom('api_keys')
        .select('organization_id')
        .where('id', '=', id)
        .executeTakeFirst();
      const revoked = owner
        ? await cliAudited(owner.organization_id, 'key revoke', { type: 'keys', id }, () => revokeKey(database.db, id))
        : undefined;
      if (!revoked) throw new Error(`No key has the id ${id}.`);
      print(options.json, { id: revoked.id, revokedAt: revoked.revokedAt }, `Revoked key ${revoked.id}.`);
    },
    { brief: true },
  );
}
