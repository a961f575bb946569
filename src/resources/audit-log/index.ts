import Type, { type Static } from 'typebox';
import { AUDIT_LOG_READ } from '../../auth/permissions.js';
import { AUDIT_ACTOR_TYPES } from '../../db/audit.js';
import { authOf } from '../../http/auth.js';
import type { PatronApp, PlatformServices, ResourceModule } from '../../core/types.js';
import { listRecords } from '../../lists/engine.js';
import { compileFilterParam } from '../../lists/filter.js';
import { listQuerySchema } from '../../lists/query.js';
import type { ListDefinition } from '../../lists/types.js';
import { AuditEntry, toAuditEntry, type AuditRowRead } from '../../records/audit-entry.js';
import { listEnvelope } from '../../records/envelope.js';
import { describedPattern } from '../../core/pattern-message.js';

/** What GET /audit-log can filter and sort: newest first by default, along its primary key. */
export const auditList: ListDefinition = {
  name: 'audit log entries',
  from: 'audit_log a',
  alias: 'a',
  select: 'a.*',
  joins: {},
  relations: {},
  fields: {
    id: { type: 'uuid', column: 'a.id' },
    actorType: { type: 'enum', column: 'a.actor_type', enumValues: AUDIT_ACTOR_TYPES },
    actorId: { type: 'string', column: 'a.actor_id' },
    method: { type: 'string', column: 'a.method' },
    path: { type: 'string', column: 'a.path' },
    status: { type: 'integer', column: 'a.status' },
    requestId: { type: 'string', column: 'a.request_id' },
    resourceType: { type: 'string', column: 'a.resource_type' },
    resourceId: { type: 'string', column: 'a.resource_id' },
    createdAt: { type: 'timestamp', column: 'a.created_at' },
  },
  sorts: {
    createdAt: { column: 'a.created_at', type: 'timestamp', nullable: false },
  },
  defaultSort: '-createdAt',
  includes: {},
};

const ACTOR = `^(${AUDIT_ACTOR_TYPES.join('|')})(:[A-Za-z0-9_.@+-]{1,100})?$`;

/** The shorthand filters of the audit log, beside the list engine's own parameters (docs/api.md#audit-log). */
const AuditLogQuery = Type.Object(
  {
    ...listQuerySchema(auditList).properties,
    actor: Type.Optional(
      Type.String({
        ...describedPattern(
          ACTOR,
          'must be apiKey, user, cli or system, or one of them, a colon and an id (user:0190…)',
        ),
        maxLength: 110,
        description:
          'Who: a type (apiKey, user, cli, system), or a type and id, e.g. apiKey:0190… or user:0190… (the key’s or user’s id).',
      }),
    ),
    resourceType: Type.Optional(
      Type.String({
        ...describedPattern(
          '^[a-z][a-z-]{0,63}$',
          'must be a lower-case path segment such as products or loyalty-rewards',
        ),
        maxLength: 64,
        description: 'The first path segment after /v1, e.g. products, customers, keys, session.',
      }),
    ),
    resourceId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "The record's id." })),
    status: Type.Optional(
      Type.String({
        ...describedPattern('^[1-5]([0-9]{2}|xx)$', 'must be a status such as 404 or a class such as 2xx'),
        maxLength: 3,
        description: 'The status answered: an exact code (404) or a class (2xx, 4xx).',
      }),
    ),
    createdAfter: Type.Optional(
      Type.String({ format: 'date-time', maxLength: 40, description: 'Entries made at or after this time.' }),
    ),
    createdBefore: Type.Optional(
      Type.String({ format: 'date-time', maxLength: 40, description: 'Entries made before this time.' }),
    ),
  },
  { additionalProperties: false },
);
type AuditLogQuery = Static<typeof AuditLogQuery>;

/** The shorthand filters as one filter document, ANDed by the list engine with the caller's own `filter`. */
function shorthandFilter(query: AuditLogQuery): Record<string, unknown>[] {
  const conditions: Record<string, unknown>[] = [];
  if (query.actor) {
    const [type, ...rest] = query.actor.split(':');
    conditions.push({ actorType: type });
    if (rest.length) conditions.push({ actorId: rest.join(':') });
  }
  if (query.resourceType) conditions.push({ resourceType: query.resourceType });
  if (query.resourceId) conditions.push({ resourceId: query.resourceId });
  if (query.status) {
    if (query.status.endsWith('xx')) {
      const floor = Number(query.status[0]) * 100;
      conditions.push({ status: { $gte: floor, $lt: floor + 100 } });
    } else conditions.push({ status: Number(query.status) });
  }
  if (query.createdAfter) conditions.push({ createdAt: { $gte: query.createdAfter } });
  if (query.createdBefore) conditions.push({ createdAt: { $lt: query.createdBefore } });
  return conditions;
}

function auditLogRoutes(app: PatronApp, { db }: PlatformServices): void {
  // Only a read: nothing in the API changes or deletes an entry (docs/api.md#audit-log).
  app.get(
    '/audit-log',
    {
      config: { permission: AUDIT_LOG_READ, cost: 1 },
      schema: {
        operationId: 'listAuditLog',
        summary:
          'Who changed what, when, and what was answered: every write request and sign-in, newest first (owners and admins)',
        tags: ['audit-log'],
        querystring: AuditLogQuery,
        response: { 200: listEnvelope(AuditEntry) },
      },
    },
    async (request) => {
      const { actor, resourceType, resourceId, status, createdAfter, createdBefore, ...params } = request.query;
      // The caller's filter is checked on its own first, so that its errors name what was sent.
      compileFilterParam(auditList, params.filter);
      const shorthand = shorthandFilter({ actor, resourceType, resourceId, status, createdAfter, createdBefore });
      const documents = params.filter ? [...shorthand, JSON.parse(params.filter) as unknown] : shorthand;
      const filter = documents.length ? JSON.stringify({ $and: documents }) : undefined;
      return listRecords(db, {
        list: auditList,
        organizationId: authOf(request).organizationId,
        params: { ...params, filter },
        toRecord: (row: AuditRowRead) => toAuditEntry(row),
      });
    },
  );
}

export const auditLogResource: ResourceModule = {
  name: 'audit-log',
  description:
    'The audit log: every write request, sign-in, sign-out and CLI change, with who made it and what was answered; read-only.',
  permissions: [AUDIT_LOG_READ],
  routes: auditLogRoutes,
  examples: {
    listAuditLog: {
      summary: 'What secret keys changed in products',
      query: { actor: 'apiKey', resourceType: 'products' },
    },
  },
};
