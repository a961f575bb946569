import type { Kysely } from 'kysely';
import { createKey } from '../auth/keys.js';
import { ALL_PERMISSIONS } from '../auth/permissions.js';
import type { DB } from '../db/schema.js';
import { createOrganization, type Organization } from '../compose.js';

export interface DemoSeed {
  organization: Organization;
  keyId: string;
  key: string;
}

/** A demo organization and a key with every permission, so the quick start has something to call. */
export async function seedDemo(db: Kysely<DB>): Promise<DemoSeed> {
  const organization = await createOrganization(db, { name: 'Demo', timezone: 'UTC' });
  const { record, key } = await createKey(db, {
    organizationId: organization.id,
    permissions: [ALL_PERMISSIONS],
    name: 'demo',
  });
  return { organization, keyId: record.id, key };
}
