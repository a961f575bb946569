/** The dashboard user record (docs/api.md#dashboard-sessions): its response shape and the row→record mapping. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { UsersTable } from '../db/schema.js';
import { NullableTimestamp, Timestamp, Uuid } from './common.js';

export const UserRoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('viewer')], {
  description:
    'owner: every permission and user management; admin: every permission but user management; viewer: every …:read permission.',
});

/**
 * The locales the dashboard formats numbers and dates in (and, later, speaks): a user's own choice, stored with the
 * user (docs/api.md#users-and-roles). A new language is added here.
 */
export const USER_LOCALES = ['en', 'de'] as const;
export type UserLocale = (typeof USER_LOCALES)[number];

export const UserLocaleSchema = Type.Union([Type.Literal('en'), Type.Literal('de')], {
  description:
    "The user's locale, a BCP 47 language tag: the dashboard shows numbers and dates in its formats. `en` until the user picks another.",
});

const toLocale = (stored: string): UserLocale =>
  (USER_LOCALES as readonly string[]).includes(stored) ? (stored as UserLocale) : 'en';

export const User = Type.Object(
  {
    id: Uuid,
    organizationId: Uuid,
    email: Type.String({ description: 'Unique across the deployment, compared case-insensitively.' }),
    name: Type.Union([Type.String(), Type.Null()]),
    role: UserRoleSchema,
    hasPassword: Type.Boolean({ description: 'False until the user sets a password (a link signs in without one).' }),
    createdAt: Timestamp,
    lastSignedInAt: NullableTimestamp,
    locale: UserLocaleSchema,
  },
  { $id: 'User', additionalProperties: false },
);
export type User = Static<typeof User>;

/** The columns toUser reads. */
export const USER_COLUMNS = [
  'id',
  'organization_id',
  'email',
  'name',
  'role',
  'password_hash',
  'created_at',
  'last_signed_in_at',
  'locale',
] as const satisfies readonly (keyof Selectable<UsersTable>)[];

export function toUser(row: Pick<Selectable<UsersTable>, (typeof USER_COLUMNS)[number]>): User {
  return {
    id: row.id,
    organizationId: row.organization_id,
    email: row.email,
    name: row.name,
    role: row.role,
    hasPassword: row.password_hash !== null,
    createdAt: row.created_at.toISOString(),
    lastSignedInAt: row.last_signed_in_at?.toISOString() ?? null,
    locale: toLocale(row.locale),
  };
}
