import type { FastifyRequest } from 'fastify';
import { withoutSecretKeys } from '../auth/keys.js';
import type { AuthContext, PatronApp } from '../core/types.js';
import {
  completeAuditEntry,
  insertAuditEntry,
  holdAuditEntry,
  type AuditActor,
  type AuditRow,
  type PendingAudit,
} from '../db/audit.js';
import type { Database } from '../db/engine.js';
// Never a planned id (src/util/ids.ts): an entry must not take the id a seeded record is meant to get.
import { v7 as uuidv7 } from 'uuid';

/*
 * Every write request to the API is recorded in the audit log (docs/api.md#audit-log). The route's handler runs with
 * a pending entry in its async context, which the database driver writes in the first transaction the request
 * commits (src/db/audit.ts), carrying the status the route answers on success. Once the answer is sent, an entry
 * written that way is corrected if the answer differed (or named a created record), and a request that committed
 * nothing (refused, failed, or changing nothing) gets its entry then.
 */

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const MAX_PATH = 2048;
const MAX_USER_AGENT = 512;

declare module 'fastify' {
  interface FastifyRequest {
    /** The audit entry of a write request, from the handler on (docs/api.md#audit-log). */
    auditEntry: PendingAudit | null;
  }
}

/** The status a route answers on success: the lowest 2xx its schema declares (200 when it declares none). */
const successStatusOf = new WeakMap<object, number>();
function successStatus(request: FastifyRequest): number {
  const schema = request.routeOptions.schema as { response?: Record<string, unknown> } | undefined;
  if (!schema) return 200;
  let status = successStatusOf.get(schema);
  if (status === undefined) {
    const codes = Object.keys(schema.response ?? {})
      .map(Number)
      .filter((code) => code >= 200 && code < 300);
    status = codes.length ? Math.min(...codes) : 200;
    successStatusOf.set(schema, status);
  }
  return status;
}

/**
 * The caller as the audit log names them (docs/api.md#audit-log): a dashboard user by id and email, a key by id and
 * prefix. Records that say who wrote them (a review's reply, docs/api.md#review-replies) name their author the same way.
 */
export function callerActor(auth: AuthContext): AuditActor & { type: 'user' | 'apiKey' } {
  if (auth.session) {
    const { user } = auth.session;
    return { type: 'user', id: user.id, label: user.email };
  }
  return { type: 'apiKey', id: auth.keyId ?? null, label: auth.keyPrefix ?? null };
}

/** Who made the request: the key, or the signed-in user; else who a sign-in named. */
function attribution(request: FastifyRequest): { organizationId: string; actor: AuditActor } | null {
  const attributed = request.auditEntry?.attributed;
  if (attributed) return attributed;
  const auth = request.auth;
  if (!auth) return null;
  return { organizationId: auth.organizationId, actor: callerActor(auth) };
}

/**
 * The record a route is about (docs/api.md#audit-log): the first path segment after /v1 (`/v1/products/{productId}/tags`
 * → products), and the path parameter right after it when there is one (that product's id), else the id a create
 * answered with. Read from the route's URL once per route.
 */
const routeTargets = new Map<string, { type: string | null; param: string | null }>();
function routeTarget(request: FastifyRequest): { type: string | null; param: string | null } {
  const url = request.routeOptions.url ?? '';
  let target = routeTargets.get(url);
  if (!target) {
    const [type, second] = url.startsWith('/v1/') ? url.slice(4).split('/') : [];
    target = { type: type || null, param: second?.startsWith(':') ? second.slice(1) : null };
    routeTargets.set(url, target);
  }
  return target;
}

const paramId = (request: FastifyRequest): string | null => {
  const { param } = routeTarget(request);
  if (!param) return null;
  const value = (request.params as Record<string, unknown> | undefined)?.[param];
  return typeof value === 'string' ? value.slice(0, 100) : null;
};

function auditRow(request: FastifyRequest, createdAt: Date, id: string, status: number): AuditRow | null {
  const who = attribution(request);
  if (!who) return null;
  const userAgent = request.headers['user-agent'];
  const path = request.url.split('?', 1)[0]!;
  return {
    organizationId: who.organizationId,
    id,
    createdAt,
    actor: who.actor,
    method: request.method,
    path: withoutSecretKeys(path).slice(0, MAX_PATH),
    status,
    requestId: request.id,
    ip: request.ip ?? null,
    userAgent: typeof userAgent === 'string' ? userAgent.slice(0, MAX_USER_AGENT) : null,
    resourceType: routeTarget(request).type,
    resourceId: paramId(request),
  };
}

const pendingTimes = new WeakMap<FastifyRequest, { createdAt: Date; id: string }>();
/** Ends a request's hold on the async context its pending entry travels in (holdAuditEntry). */
const releases = new WeakMap<FastifyRequest, () => void>();

/**
 * A write request of the API. A POST that needs only a `…:read` permission is a read whose question is too large for
 * a query string (an analytics query, a template preview): it changes nothing and is not recorded
 * (docs/api.md#audit-log).
 */
const isAudited = (request: FastifyRequest) =>
  WRITE_METHODS.has(request.method) &&
  request.routeOptions.url?.startsWith('/v1/') === true &&
  request.routeOptions.config.permission?.endsWith(':read') !== true;

// A create answers its record, id first (`{"id":"…"`: the serializer writes the schema's properties in order), or
// an object whose first property is that record (`{"user":{"id":"…"`, a user with its sign-in link).
const CREATED_ID = /^\{(?:"[A-Za-z]{1,40}":\{)?"id":"([^"]{1,100})"/;

export function registerAuditLog(app: PatronApp, database: Database, enabled: boolean): void {
  // AUDIT_LOG=off: no hook, so no request runs in an audit context and the driver writes nothing.
  if (!enabled) return;
  app.decorateRequest('auditEntry', null);

  // The last preHandler (registered after the idempotency claim): the handler runs inside the pending entry.
  app.addHook('preHandler', (request, _reply, done) => {
    if (!isAudited(request)) return done();
    const createdAt = new Date();
    const id = uuidv7();
    const pending: PendingAudit = {
      row: () => auditRow(request, createdAt, id, successStatus(request)),
      written: null,
    };
    request.auditEntry = pending;
    pendingTimes.set(request, { createdAt, id });
    releases.set(request, holdAuditEntry(pending, done));
  });

  // Before the answer leaves, an entry its commit wrote is corrected when the answer differs from the route's
  // success (a commit before a refusal) or names a created record, so that a client reading the log after its answer
  // finds it whole. Nothing to do on most writes (an update answering its success).
  app.addHook('onSend', async (request, reply, payload) => {
    const written = request.auditEntry?.written;
    if (!written) return payload;
    let createdId: string | null = null;
    if (written.resourceId === null && reply.statusCode === 201 && typeof payload === 'string') {
      createdId = CREATED_ID.exec(payload)?.[1] ?? null;
    }
    if (written.status !== reply.statusCode || createdId !== null) {
      try {
        await completeAuditEntry(database.db, written, reply.statusCode, createdId);
        request.auditEntry!.written = {
          ...written,
          status: reply.statusCode,
          resourceId: written.resourceId ?? createdId,
        };
      } catch (error) {
        request.log.error({ err: error }, 'audit log entry not completed');
      }
    }
    return payload;
  });

  app.addHook('onResponse', async (request, reply) => {
    if (!isAudited(request)) return;
    // The request can commit nothing more. A request whose onResponse never runs keeps the storage on, which costs
    // CPU, never an entry.
    releases.get(request)?.();
    const status = reply.statusCode;
    try {
      const written = request.auditEntry?.written;
      if (written) {
        // An answer that failed after onSend (the connection dropped) still gets its status.
        if (written.status !== status) await completeAuditEntry(database.db, written, status, null);
        return;
      }
      // Refused before the handler (no pending entry), or nothing committed: the entry is written now, under the
      // pending entry's id when there was one (so that it cannot be written twice).
      const row = auditRow(
        request,
        pendingTimes.get(request)?.createdAt ?? new Date(),
        pendingTimes.get(request)?.id ?? uuidv7(),
        status,
      );
      if (row) await insertAuditEntry(database.db, row);
    } catch (error) {
      request.log.error({ err: error }, 'audit log entry not written');
    }
  });
}
