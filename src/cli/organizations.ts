import { liveOrganization, liveOrganizations, organizationService } from '../operator.js';
import { cliAudited } from './audit.js';
import { withCli } from './context.js';
import { print } from './print.js';

/** `patron org create`. */
export async function createOrganizationCommand(options: {
  name: string;
  timezone: string;
  apiRequestsPerMinute?: number;
  json?: boolean;
}): Promise<void> {
  const { createOrganization, findTestOrganizationId, isTimeZone } = await organizationService();
  // Checked before the database opens, so a typo leaves nothing behind.
  if (!isTimeZone(options.timezone)) {
    throw new Error(`Unknown time zone "${options.timezone}": use an IANA name such as Europe/Berlin.`);
  }
  await withCli(
    async ({ database }) => {
      const created = await createOrganization(database.db, options);
      const testOrganizationId = await findTestOrganizationId(database.db, created.id);
      print(
        options.json,
        { id: created.id, name: created.name, timezone: created.timezone, testOrganizationId },
        `Created organization "${created.name}" (${created.id}, ${created.timezone}), and its test data (${testOrganizationId}).\n` +
          `Make a key: npm run patron -- key create --org ${created.id} --permissions all\n` +
          `Make a test key: npm run patron -- key create --org ${created.id} --permissions all --test`,
      );
    },
    { brief: true },
  );
}

/** `patron org update`: the name, time zone or plan allowances. */
export async function updateOrganizationCommand(
  id: string,
  options: {
    name?: string;
    timezone?: string;
    apiRequestsPerMinute?: number;
    loyaltyEventsPerMinute?: number;
    loyaltyStampsPerMinute?: number;
    json?: boolean;
  },
): Promise<void> {
  const { json, ...changes } = options;
  const { isTimeZone, updateOrganizationPlan } = await organizationService();
  if (Object.keys(changes).length === 0) {
    throw new Error(
      'Nothing to change: give --name, --timezone, --api-requests-per-minute, --loyalty-events-per-minute or --loyalty-stamps-per-minute.',
    );
  }
  // Checked before the database opens, so a typo leaves nothing behind.
  if (changes.timezone !== undefined && !isTimeZone(changes.timezone)) {
    throw new Error(`Unknown time zone "${changes.timezone}": use an IANA name such as Europe/Berlin.`);
  }
  await withCli(
    async ({ database }) => {
      await liveOrganization(database.db, id);
      const updated = await cliAudited(id, 'org update', { type: 'organization', id }, () =>
        updateOrganizationPlan(database.db, id, changes),
      );
      if (!updated) throw new Error(`No organization has the id ${id}.`);
      const { organization: o, changed } = updated;
      print(
        json,
        updated,
        `${changed ? 'Updated' : 'Nothing changed for'} organization "${o.name}" (${o.id}, ${o.timezone}): ` +
          `${o.plan.apiRequestsPerMinute} requests, ${o.plan.loyaltyEventsPerMinute} loyalty events and ` +
          `${o.plan.loyaltyStampsPerMinute} loyalty stamps per minute.`,
      );
    },
    { brief: true },
  );
}

/** `patron org list`. */
export async function listOrganizationsCommand(options: { json?: boolean }): Promise<void> {
  await withCli(
    async ({ database }) => {
      const organizations = await liveOrganizations(database.db);
      print(
        options.json,
        { data: organizations },
        organizations.length
          ? organizations
              .map(
                (o) =>
                  `${o.id}  ${o.name}  (${o.timezone}, ${o.plan.apiRequestsPerMinute}/min; test data ${o.testOrganizationId})`,
              )
              .join('\n')
          : 'No organizations yet.',
      );
    },
    { brief: true },
  );
}
