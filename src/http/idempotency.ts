import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { isSealed, type SecretBox } from '../core/secret-box.js';
import { canonicalJson } from '../util/canonical-json.js';
import { ApiError, conflict, validationError } from '../core/errors.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PRESENCE_GONE_AFTER_SECONDS, type ProcessPresence } from './process-presence.js';
import type { PatronApp } from '../core/types.js';

const RETENTION_HOURS = 24;
/**
 * An in-progress claim that names no process (made before processes were tracked) and is older than this is taken
 * to belong to a process that died.
 */
const ABANDONED_AFTER_SECONDS = 300;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

// The first request's process is known gone: it stopped renewing its presence (or never had one and the claim
// is old). Its claim is taken over; whatever it did before dying either committed (and the retry meets it as
// any retry would) or did not.
const claimOfProcessGone = sql<boolean>`(case when idempotency_keys.owner_process is null
  then idempotency_keys.created_at < now() - make_interval(secs => ${ABANDONED_AFTER_SECONDS})
  else not exists (select 1 from server_processes p where p.id = idempotency_keys.owner_process
    and p.renewed_at > now() - make_interval(secs => ${PRESENCE_GONE_AFTER_SECONDS})) end)`;

/** A stored answer, opened if its route sealed it (a JSON answer stored before the route sealed them is as it was). */
const openStored = (box: SecretBox | undefined, stored: string) =>
  box && isSealed(stored) ? box.open(stored) : stored;

interface IdempotencyClaim {
  organizationId: string;
  key: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim: IdempotencyClaim | null;
  }
}

/**
 * What identifies a request's body: the body itself, or for a body read as a stream (an import job's file), which
 * cannot be read before the claim, its type, encoding and length (docs/api.md#idempotency-keys).
 */
function bodyFingerprint(request: FastifyRequest): string {
  const body = request.body as { pipe?: unknown } | undefined;
  if (body && typeof body.pipe === 'function') {
    const { headers } = request;
    return `stream ${headers['content-type'] ?? ''} ${headers['content-encoding'] ?? ''} ${headers['content-length'] ?? ''}`;
  }
  return canonicalJson(request.body);
}

/**
 * A POST with an Idempotency-Key runs once (docs/api.md#idempotency-keys). The same key and body within 24 h replays
 * the first response; the same key with another body, or while the first is still running, is 409. Stored per
 * organization. A claim names the process running it (`presence`), so a retry can take over the claim of a process
 * known gone.
 */
export function registerIdempotency(app: PatronApp, db: Kysely<DB>, presence: ProcessPresence): void {
  app.decorateRequest('idempotencyClaim', null);

  // Callback-style hooks with a synchronous fast path: most requests carry no key, and an async hook costs every
  // request a promise and a microtask turn.
  app.addHook('preHandler', (request, reply, done) => {
    // The session-only endpoints are the dashboard's own forms, not API calls to retry: they keep no answers
    // (docs/api.md#dashboard-sessions).
    if (
      request.method !== 'POST' ||
      !request.auth ||
      request.headers['idempotency-key'] === undefined ||
      request.routeOptions.config.access === 'session'
    )
      return done();
    claimOrReplay(request, reply).then(() => {
      if (!reply.sent) done();
    }, done);
  });

  async function claimOrReplay(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const header = request.headers['idempotency-key'];
    const organizationId = request.auth!.organizationId;
    if (typeof header !== 'string' || !KEY_PATTERN.test(header)) {
      throw validationError('The Idempotency-Key header must be 1 to 255 visible ASCII characters, sent once.', [
        { path: 'header.idempotency-key', message: 'must be 1 to 255 visible ASCII characters' },
      ]);
    }
    const fingerprint = createHash('sha256')
      .update(`${request.method} ${request.url}\n${bodyFingerprint(request)}`)
      .digest('hex');

    const claimed = await db
      .insertInto('idempotency_keys')
      .values({
        organization_id: organizationId,
        key: header,
        fingerprint,
        state: 'in_progress',
        owner_process: presence.id,
        expires_at: sql<Date>`now() + make_interval(hours => ${RETENTION_HOURS})`,
      })
      .onConflict((oc) =>
        oc
          .columns(['organization_id', 'key'])
          .doUpdateSet({
            fingerprint,
            state: 'in_progress',
            owner_process: presence.id,
            status_code: null,
            content_type: null,
            response_body: null,
            created_at: sql<Date>`now()`,
            expires_at: sql<Date>`now() + make_interval(hours => ${RETENTION_HOURS})`,
          })
          .where((eb) =>
            eb.or([
              eb('idempotency_keys.expires_at', '<=', sql<Date>`now()`),
              eb.and([eb('idempotency_keys.state', '=', 'in_progress'), claimOfProcessGone]),
            ]),
          ),
      )
      .returning('key')
      .executeTakeFirst();
    if (claimed) {
      request.idempotencyClaim = { organizationId, key: header };
      return;
    }

    const existing = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('key', '=', header)
      .executeTakeFirst();
    if (!existing || existing.fingerprint !== fingerprint) {
      throw conflict('This Idempotency-Key was already used for a different request; use a new key for a new request.');
    }
    if (existing.state === 'in_progress') {
      throw new ApiError(
        'CONFLICT',
        'A request with this Idempotency-Key is still being processed; retry after it has finished.',
        undefined,
        { 'retry-after': '1' },
      );
    }
    reply.code(existing.status_code ?? 200).header('idempotent-replayed', 'true');
    if (existing.content_type) reply.type(existing.content_type);
    return reply.send(openStored(request.routeOptions.config.sealStoredAnswer, existing.response_body ?? ''));
  }

  app.addHook('onSend', (request, reply, payload, done) => {
    const claim = request.idempotencyClaim;
    if (!claim) return done(null, payload);
    request.idempotencyClaim = null;
    settleClaim(claim, reply, payload).then((settled) => done(null, settled), done);
  });

  async function settleClaim(claim: IdempotencyClaim, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const scope = db
      .updateTable('idempotency_keys')
      .where('organization_id', '=', claim.organizationId)
      .where('key', '=', claim.key);
    // A fault or a refusal to run is not an answer to replay: release the key so the request can be retried.
    if (reply.statusCode >= 500 || reply.statusCode === 429 || typeof payload !== 'string') {
      await db
        .deleteFrom('idempotency_keys')
        .where('organization_id', '=', claim.organizationId)
        .where('key', '=', claim.key)
        .execute();
      return payload;
    }
    await scope
      .set({
        state: 'completed',
        owner_process: null,
        status_code: reply.statusCode,
        content_type: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
        response_body: reply.request.routeOptions.config.sealStoredAnswer?.seal(payload) ?? payload,
      })
      .execute();
    return payload;
  }
  // Expired keys are deleted by the retention job (docs/api.md#retention); until then they count as absent.
}
