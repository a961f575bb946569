import { createHash, randomInt } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { uuidv7 } from '../util/ids.js';
import type { ApiKeysTable, DB } from '../db/schema.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 40;
/** A live key is `sk_` + the random part; a test key, which acts on the organization's test twin, `sk_test_` + it. */
const LIVE_PREFIX = 'sk_';
const TEST_PREFIX = 'sk_test_';
// The visible prefix: the mode's prefix + 8 characters, enough to tell keys apart, far too little to guess one.
const VISIBLE_RANDOM = 8;
export const KEY_PATTERN = /^sk_(?:test_)?[0-9A-Za-z]{32,128}$/;

/** A secret key anywhere in a text (a URL, a log line): what must never be logged or accepted outside the header. */
export const SECRET_KEY_IN_TEXT = /(?<![0-9A-Za-z])sk_(?:test_)?[0-9A-Za-z]{32,128}(?![0-9A-Za-z])/;

/** The part of a key shown in lists and logs: `sk_` or `sk_test_` and the first 8 random characters. */
const visiblePrefix = (key: string) =>
  key.slice(0, (key.startsWith(TEST_PREFIX) ? TEST_PREFIX.length : LIVE_PREFIX.length) + VISIBLE_RANDOM);

/** The text with every secret key cut to its visible prefix, e.g. `sk_a1b2c3d4…`: safe to log. */
const SECRET_KEYS_IN_TEXT = new RegExp(SECRET_KEY_IN_TEXT.source, 'g');
// Every request's log line passes its URL through here; almost none holds a key, so those skip the regular expression.
export const withoutSecretKeys = (text: string): string =>
  text.includes('sk_') ? text.replace(SECRET_KEYS_IN_TEXT, (key) => `${visiblePrefix(key)}…`) : text;

export function generateSecretKey(mode: 'live' | 'test' = 'live'): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(BASE62.length)];
  return `${mode === 'test' ? TEST_PREFIX : LIVE_PREFIX}${random}`;
}

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

export interface KeyRecord {
  id: string;
  organizationId: string;
  name: string | null;
  prefix: string;
  permissions: string[];
  createdAt: Date;
  revokedAt: Date | null;
}

/**
 * Makes a key of the organization. Its form follows the organization (docs/api.md#test-mode): a test twin's keys are
 * `sk_test_…`, a live organization's `sk_…`, so a key's text always says which data it acts on.
 */
export async function createKey(
  db: Kysely<DB>,
  input: { organizationId: string; permissions: string[]; name?: string | undefined },
): Promise<{ record: KeyRecord; key: string }> {
  const organization = await db
    .selectFrom('organizations')
    .select('live_organization_id')
    .where('id', '=', input.organizationId)
    .executeTakeFirst();
  const key = generateSecretKey(organization?.live_organization_id ? 'test' : 'live');
  const row = await db
    .insertInto('api_keys')
    .values({
      organization_id: input.organizationId,
      id: uuidv7(),
      name: input.name ?? null,
      prefix: visiblePrefix(key),
      key_hash: hashKey(key),
      permissions: input.permissions,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { record: toRecord(row), key };
}

export async function listKeys(db: Kysely<DB>, organizationId: string): Promise<KeyRecord[]> {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toRecord);
}

/** Revokes by key id (an operator action, so it is not scoped to one organization). Returns null if unknown. */
export async function revokeKey(db: Kysely<DB>, keyId: string): Promise<KeyRecord | null> {
  const row = await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  if (row) return toRecord(row);
  const existing = await db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
  return existing ? toRecord(existing) : null;
}

function toRecord(row: Selectable<ApiKeysTable>): KeyRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    prefix: row.prefix,
    permissions: row.permissions,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

/** One key of the organization; undefined for another organization's key, like a missing one. */
export async function findOrganizationKey(
  db: Kysely<DB>,
  organizationId: string,
  keyId: string,
): Promise<KeyRecord | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', keyId)
    .executeTakeFirst();
  return row ? toRecord(row) : undefined;
}

/**
 * Revokes one of the organization's keys (the dashboard); a key already revoked keeps its first revocation time.
 * Undefined for another organization's key, like a missing one.
 */
export async function revokeOrganizationKey(
  db: Kysely<DB>,
  organizationId: string,
  keyId: string,
): Promise<KeyRecord | undefined> {
  const row = await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('organization_id', '=', organizationId)
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  return row ? toRecord(row) : findOrganizationKey(db, organizationId, keyId);
}
