/** The API key record the dashboard manages (docs/api.md#dashboard-sessions): never the secret, only its prefix. */
import Type, { type Static } from 'typebox';
import type { KeyRecord } from '../auth/keys.js';
import { NullableTimestamp, Timestamp, Uuid } from './common.js';

export const ApiKey = Type.Object(
  {
    id: Uuid,
    name: Type.Union([Type.String(), Type.Null()]),
    prefix: Type.String({
      description: 'The start of the key (sk_ or sk_test_, and 8 more characters), to tell keys apart.',
    }),
    permissions: Type.Array(Type.String(), { description: '"all", or permissions of the catalog.' }),
    createdAt: Timestamp,
    revokedAt: NullableTimestamp,
  },
  { $id: 'ApiKey', additionalProperties: false },
);
export type ApiKey = Static<typeof ApiKey>;

/** A key just made: the record and the secret itself, shown this once. */
export const CreatedApiKey = Type.Object(
  {
    ...ApiKey.properties,
    key: Type.String({
      description: 'The secret key, sk_… (live) or sk_test_… (test mode): shown only in this answer, never again.',
    }),
  },
  { $id: 'CreatedApiKey', additionalProperties: false },
);
export type CreatedApiKey = Static<typeof CreatedApiKey>;

export function toApiKey(record: KeyRecord): ApiKey {
  return {
    id: record.id,
    name: record.name,
    prefix: record.prefix,
    permissions: record.permissions,
    createdAt: record.createdAt.toISOString(),
    revokedAt: record.revokedAt?.toISOString() ?? null,
  };
}
