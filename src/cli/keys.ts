import { createKey, listKeys, revokeKey } from '../auth/keys.js';
import { parsePermissionList } from '../auth/permissions.js';
import { liveOrganization } from '../operator.js';
import { cliAudited } from './audit.js';
import { withCli } from './context.js';
import { print } from './print.js';

/**
 * `patron key create`: `catalog` is every permission a key can be granted (the composition root's). With --test the
 * key is the organization's test twin's, `sk_test_…` (docs/api.md#test-mode), and its audit entry is the twin's.
 */
export async function createKeyCommand(
  options: { org: string; permissions: string; name?: string; test?: boolean; json?: boolean },
  catalog: readonly string[],
): Promise<void> {
  const permissions = parsePermissionList(options.permissions, catalog);
  await withCli(
    async ({ database }) => {
      const organization = await liveOrganization(database.db, options.org);
      const organizationId = options.test ? organization.testOrganizationId! : organization.id;
      const created = await cliAudited(organizationId, 'key create', { type: 'keys', id: null }, () =>
        createKey(database.db, { organizationId, permissions, name: options.name }),
      );
      const mode = options.test ? 'test' : 'live';
      print(
        options.json,
        {
          id: created.record.id,
          key: created.key,
          permissions: created.record.permissions,
          livemode: !options.test,
          organizationId,
        },
        `Created ${mode} key ${created.record.id} with ${permissions.join(', ')}:\n  ${created.key}\n` +
          (options.test
            ? `It acts only on the test data of "${organization.name}". It is shown only now.`
            : 'It is shown only now.'),
      );
    },
    { brief: true },
  );
}

/** `patron key list`: the organization's live keys, then its test keys (docs/api.md#test-mode); never the secrets. */
export async function listKeysCommand(options: { org: string; json?: boolean }): Promise<void> {
  await withCli(
    async ({ database }) => {
      const organization = await liveOrganization(database.db, options.org);
      const keys = [
        ...(await listKeys(database.db, organization.id)).map((k) => ({ ...k, livemode: true })),
        ...(await listKeys(database.db, organization.testOrganizationId!)).map((k) => ({ ...k, livemode: false })),
      ];
      print(
        options.json,
        { data: keys },
        keys.length
          ? keys
              .map(
                (k) =>
                  `${k.id}  ${k.livemode ? 'live' : 'test'}  ${k.prefix}…  ${k.permissions.join(',')}  ${k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active'}${k.name ? `  (${k.name})` : ''}`,
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
