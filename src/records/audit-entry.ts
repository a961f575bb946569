/** An audit log entry (docs/api.md#audit-log): who wrote what, when, and what the API answered. Never a body. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { AuditActorType } from '../db/audit.js';
import { Timestamp, Uuid } from './common.js';

export interface AuditLogTable {
  organization_id: string;
  created_at: Date;
  id: string;
  actor_type: AuditActorType;
  actor_id: string | null;
  actor_label: string | null;
  method: string;
  path: string;
  status: number | null;
  request_id: string | null;
  ip: string | null;
  user_agent: string | null;
  resource_type: string | null;
  resource_id: string | null;
}

declare module '../db/schema.js' {
  interface DB {
    audit_log: AuditLogTable;
  }
}

const Nullable = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

export const AuditActor = Type.Object(
  {
    type: Type.Union([Type.Literal('apiKey'), Type.Literal('user'), Type.Literal('cli'), Type.Literal('system')], {
      description:
        'apiKey (a secret key), user (a dashboard user, or the user a sign-in named), cli (a patron command on the server), system.',
    }),
    id: Nullable("The key's or user's id; null for cli."),
    label: Nullable("The key's prefix (sk_ or sk_test_ and 8 characters), the user's email, or the CLI command."),
  },
  { additionalProperties: false },
);

export const AuditEntry = Type.Object(
  {
    id: Uuid,
    createdAt: Timestamp,
    actor: AuditActor,
    method: Type.String({ description: 'POST, PUT, PATCH or DELETE; CLI for a command.' }),
    path: Type.String({ description: 'The path requested, without its query string; the command for the CLI.' }),
    status: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The HTTP status answered (0 for a CLI command that failed, 200 for one that succeeded).',
    }),
    requestId: Nullable('The X-Request-Id the answer carried.'),
    ip: Nullable("The client's address."),
    userAgent: Nullable('The User-Agent header, up to 512 characters.'),
    resourceType: Nullable('The first path segment after /v1 (products, customers, keys, session…).'),
    resourceId: Nullable("The record's id: the path's {id}, or the id a create answered with."),
  },
  { $id: 'AuditEntry', additionalProperties: false },
);
export type AuditEntry = Static<typeof AuditEntry>;

export type AuditRowRead = Selectable<AuditLogTable>;

export const AUDIT_COLUMNS = [
  'id',
  'created_at',
  'actor_type',
  'actor_id',
  'actor_label',
  'method',
  'path',
  'status',
  'request_id',
  'ip',
  'user_agent',
  'resource_type',
  'resource_id',
] as const satisfies readonly (keyof AuditRowRead)[];

export const toAuditEntry = (row: Pick<AuditRowRead, (typeof AUDIT_COLUMNS)[number]>): AuditEntry => ({
  id: row.id,
  createdAt: row.created_at.toISOString(),
  actor: { type: row.actor_type, id: row.actor_id, label: row.actor_label },
  method: row.method,
  path: row.path,
  status: row.status,
  requestId: row.request_id,
  ip: row.ip,
  userAgent: row.user_agent,
  resourceType: row.resource_type,
  resourceId: row.resource_id,
});
