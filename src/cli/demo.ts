import { createSignInLink, createUser, freeEmail, setPasswordHash } from '../auth/accounts.js';
import { hashPassword } from '../auth/passwords.js';
import { createKey } from '../auth/keys.js';
import { ALL_PERMISSIONS } from '../auth/permissions.js';
import type { Config } from '../config/index.js';
import type { Database } from '../db/engine.js';
import { createJobRunner } from '../jobs/runner/runner.js';
import { DEMO, DEMO_OWNER_PASSWORD, seedDemoWorld } from '../demo/index.js';
import { uuidv7, withPlannedIds } from '../util/ids.js';
import {
  createOrganization,
  createRuntime,
  findTestOrganizationId,
  scheduledJobs,
  type Organization,
} from '../compose.js';

export interface DemoSeed {
  organization: Organization;
  keyId: string;
  key: string;
  /** A test key with every permission: it acts on the demo organization's test data (docs/api.md#test-mode). */
  testKey: string;
  /**
   * The demo owner (owner@demo.example on a fresh database), a one-time sign-in link's token for it, and its demo
   * password (public: the documented sign-in example sends it).
   */
  owner: { id: string; email: string; signInToken: string; password: string };
}

/**
 * The demo organization, a key with every permission, its owner (signing in with a one-time link), and its world (src/demo/world.ts): a store, a loyalty program,
 * reviews and webhook endpoints whose well-known records the documented examples name, so the quick start has
 * something to call and "Test Request" in /docs works (docs/api.md#documented-examples-and-the-demo-world).
 */
export async function seedDemo(database: Database, config: Config, options: { now?: Date } = {}): Promise<DemoSeed> {
  const { db } = database;
  // Its default program takes the well-known id the examples name.
  const organization = await withPlannedIds([uuidv7(), DEMO.programs.main], () =>
    createOrganization(db, { name: 'Demo', timezone: 'UTC' }),
  );
  const { record, key } = await createKey(db, {
    organizationId: organization.id,
    permissions: [ALL_PERMISSIONS],
    name: 'demo',
  });
  const testOrganizationId = await findTestOrganizationId(db, organization.id);
  if (!testOrganizationId) throw new Error('The demo organization was made without its test data');
  const { key: testKey } = await createKey(db, {
    organizationId: testOrganizationId,
    permissions: [ALL_PERMISSIONS],
    name: 'demo (test)',
  });
  await seedWorld(database, config, { organizationId: organization.id, key, now: options.now });
  // The dashboard's demo owner signs in with a one-time link, or with the demo password the documented sign-in
  // example sends, so that example works on a fresh quick start (docs/api.md#the-first-start). Both are printed.
  const email = await freeEmail(db, 'owner', 'demo.example');
  const owner = await withPlannedIds([DEMO.users.owner], () =>
    createUser(db, { organizationId: organization.id, email, name: 'Demo owner', role: 'owner' }),
  );
  await setPasswordHash(db, owner, await hashPassword(DEMO_OWNER_PASSWORD), undefined);
  const { token } = await createSignInLink(db, owner);
  return {
    organization,
    keyId: record.id,
    key,
    testKey,
    owner: { id: owner.id, email, signInToken: token, password: DEMO_OWNER_PASSWORD },
  };
}

/**
 * Sends the world's requests through an app of its own, which lets endpoints point at a loopback receiver (the
 * serving app keeps the configured URL rules, so their deliveries are refused at send time unless it allows them
 * too), and runs the summary generations they queue.
 */
export async function seedWorld(
  database: Database,
  config: Config,
  { organizationId, key, now }: { organizationId: string; key: string; now?: Date },
) {
  const seeding = { ...config, allowHttpWebhooks: true, webhookAllowPrivateHosts: true, logLevel: 'silent' };
  const runtime = await createRuntime(seeding, { database, logger: false });
  const jobs = createJobRunner({
    db: database.db,
    jobs: scheduledJobs(seeding),
    logger: { info() {}, warn() {}, error() {} },
  });
  try {
    await seedDemoWorld({
      db: database.db,
      organizationId,
      now,
      send: async ({ method, url, body, contentType }) => {
        const answer = await runtime.app.inject({
          method,
          url,
          headers: { authorization: `Bearer ${key}`, 'content-type': contentType ?? 'application/json' },
          payload: contentType ? String(body) : JSON.stringify(body ?? {}),
        });
        return { statusCode: answer.statusCode, body: answer.body };
      },
      runQueuedJobs: async () => {
        while ((await jobs.tick()) > 0);
      },
    });
  } finally {
    await runtime.close();
  }
}
