/** The dashboard user record (docs/api.md#dashboard-sessions): its response shape and the row→record mapping. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { UsersTable } from '../db/schema.js';
import { NullableTimestamp, Timestamp, Uuid } from './common.js';

export const UserRoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('viewer')], {
  description:
    'owner: every permission and user management; admin: every permission but user management; viewer: every …:read permission.',
});

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
  };
}
