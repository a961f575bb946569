import {
  createSignInLink,
  createUser,
  deleteUser,
  findUserAnywhere,
  listUsers,
  signInLink,
  SIGN_IN_LINK_HOURS,
  type UserRow,
} from '../auth/accounts.js';
import type { UserRole } from '../db/schema.js';
import { liveOrganization } from '../operator.js';
import { cliAudited } from './audit.js';
import { withCli } from './context.js';

/*
 * `patron user …`: the operator's side of dashboard accounts (docs/api.md#dashboard-sessions). Owners manage users in
 * the dashboard too; the CLI is how the first owner of an organization gets in.
 */

/** Loose on purpose: the dashboard's schema checks the same (format email); this catches typos before the database. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const print = (json: boolean | undefined, value: object, text: string) =>
  process.stdout.write(json ? JSON.stringify(value) + '\n' : text + '\n');

/** Where links point: --url, else PATRON_URL, else this machine's server on PORT (as `patron export` finds it). */
export function dashboardBaseUrl(url: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const base = (url ?? env.PATRON_URL ?? `http://127.0.0.1:${env.PORT ?? '3000'}`).replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(base);
  } catch {
    throw new Error(`--url / PATRON_URL is not a valid URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`--url / PATRON_URL must be an http or https URL`);
  }
  return base;
}

const userJson = (user: UserRow) => ({
  id: user.id,
  organizationId: user.organization_id,
  email: user.email,
  name: user.name,
  role: user.role,
  hasPassword: user.password_hash !== null,
  createdAt: user.created_at.toISOString(),
  lastSignedInAt: user.last_signed_in_at?.toISOString() ?? null,
});

const linkLines = (link: string) =>
  `One-time sign-in link, valid ${SIGN_IN_LINK_HOURS} hours (shown only now):\n  ${link}`;

export async function createUserCommand(options: {
  org: string;
  email: string;
  role: UserRole;
  name?: string;
  url?: string;
  json?: boolean;
}): Promise<void> {
  // Checked before the database opens, so a typo leaves nothing behind.
  if (!EMAIL.test(options.email.trim()) || options.email.length > 254) {
    throw new Error(`"${options.email}" is not an email address.`);
  }
  const baseUrl = dashboardBaseUrl(options.url);
  await withCli(
    async ({ database }) => {
      const { db } = database;
      // Users belong to the live organization; in the dashboard they switch to its test data (docs/api.md#test-mode).
      await liveOrganization(db, options.org);
      const { user, token } = await cliAudited(options.org, 'user create', { type: 'users', id: null }, async () => {
        const made = await createUser(db, {
          organizationId: options.org,
          email: options.email,
          name: options.name,
          role: options.role,
        });
        return { user: made, token: (await createSignInLink(db, made)).token };
      });
      const link = signInLink(baseUrl, token);
      print(
        options.json,
        { user: userJson(user), signInLink: link },
        `Created user ${user.id} (${user.email}, ${user.role}) in organization ${user.organization_id}.\n${linkLines(link)}`,
      );
    },
    { brief: true },
  );
}

export async function linkUserCommand(id: string, options: { url?: string; json?: boolean }): Promise<void> {
  const baseUrl = dashboardBaseUrl(options.url);
  await withCli(
    async ({ database }) => {
      const user = await findUserAnywhere(database.db, id);
      if (!user) throw new Error(`No user has the id ${id}.`);
      const created = await cliAudited(user.organization_id, 'user link', { type: 'users', id: user.id }, () =>
        createSignInLink(database.db, user),
      );
      const link = signInLink(baseUrl, created.token);
      print(
        options.json,
        { id: user.id, email: user.email, signInLink: link, expiresAt: created.expiresAt.toISOString() },
        `A new sign-in link for ${user.email} (earlier unused links stay valid until they expire).\n${linkLines(link)}`,
      );
    },
    { brief: true },
  );
}

export async function listUsersCommand(options: { org: string; json?: boolean }): Promise<void> {
  await withCli(
    async ({ database }) => {
      const users = await listUsers(database.db, options.org);
      print(
        options.json,
        { data: users.map(userJson) },
        users.length
          ? users
              .map(
                (u) =>
                  `${u.id}  ${u.email}  ${u.role}${u.name ? `  (${u.name})` : ''}  ${
                    u.last_signed_in_at ? `last signed in ${u.last_signed_in_at.toISOString()}` : 'never signed in'
                  }`,
              )
              .join('\n')
          : 'This organization has no users.',
      );
    },
    { brief: true },
  );
}

export async function deleteUserCommand(id: string, options: { json?: boolean }): Promise<void> {
  await withCli(
    async ({ database }) => {
      const user = await findUserAnywhere(database.db, id);
      if (!user) throw new Error(`No user has the id ${id}.`);
      await cliAudited(user.organization_id, 'user delete', { type: 'users', id: user.id }, () =>
        deleteUser(database.db, user.organization_id, user.id),
      );
      print(
        options.json,
        { id: user.id, deleted: true },
        `Deleted user ${user.id} (${user.email}); their sessions ended.`,
      );
    },
    { brief: true },
  );
}
