import { signInLink } from '../auth/accounts.js';
import { resolveSecretKey } from '../config/secrets.js';
import { withCli } from './context.js';
import { seedDemo } from './demo.js';
import { print } from './print.js';
import { dashboardBaseUrl } from './users.js';

/** `patron seed --demo`: the demo organization, its live and test keys and its owner's sign-in link. */
export async function seedCommand(options: { json?: boolean; url?: string }): Promise<void> {
  const baseUrl = dashboardBaseUrl(options.url);
  await withCli(async ({ config, database }) => {
    config.secretKey = (await resolveSecretKey(config.secretKey, config.dataDir)).key;
    const demo = await seedDemo(database, config);
    print(
      options.json,
      {
        organization: demo.organization,
        id: demo.keyId,
        key: demo.key,
        testKey: demo.testKey,
        permissions: ['all'],
        owner: {
          id: demo.owner.id,
          email: demo.owner.email,
          signInLink: signInLink(baseUrl, demo.owner.signInToken),
          password: demo.owner.password,
        },
      },
      `Created the demo organization ${demo.organization.id},\nwith a sample store, loyalty program and reviews to try, and a key with every permission:\n  ${demo.key}\n` +
        `and a test key with every permission, acting only on its test data (test mode):\n  ${demo.testKey}\n` +
        `Its owner ${demo.owner.email} signs in to the dashboard once with:\n  ${signInLink(baseUrl, demo.owner.signInToken)}\n` +
        `or with the demo password (public: change it before anyone else can reach the server): ${demo.owner.password}`,
    );
  });
}
