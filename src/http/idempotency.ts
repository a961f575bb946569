import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { canonicalJson } from '../util/canonical-json.js';
import { conflict, validationError } from './errors.js';
import type { PatronApp } from './types.js';

const RETENTION_HOURS = 24;
/** An in-progress claim older than this is taken to belong to a process that died, and may be claimed again. */
const ABANDONED_AFTER_SECONDS = 300;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim: { organizationId: string; key: string } | null;
  }
}

/**
 * D16: a POST with an Idempotency-Key runs once. The same key and body within 24 h replays the first response;
 * the same key with another body, or while the first is still running, is 409. Stored per organization.
 */
export function registerIdempotency(app: PatronApp, db: Kysely<DB>): void {
  app.decorateRequest('idempotencyClaim', null);

  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST' || !request.auth) return;
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    if (typeof header !== 'string' || !KEY_PATTERN.test(header)) {
      throw validationError('The Idempotency-Key header must be 1 to 255 visible ASCII characters, sent once.', [
        { path: 'header.idempotency-key', message: 'must be 1 to 255 visible ASCII characters' },
      ]);
    }
    const organizationId = request.auth.organizationId;
    const fingerprint = createHash('sha256')
      .update(`${request.method} ${request.url}\n${canonicalJson(request.body)}`)
      .digest('hex');

    const claimed = await db
      .insertInto('idempotency_keys')
      .values({
        organization_id: organizationId,
        key: header,
        fingerprint,
        state: 'in_progress',
        expires_at: sql<Date>`now() + make_interval(hours => ${RETENTION_HOURS})`,
      })
      .onConflict((oc) =>
        oc
          .columns(['organization_id', 'key'])
          .doUpdateSet({
            fingerprint,
            state: 'in_progress',
            status_code: null,
            content_type: null,
            response_body: null,
            created_at: sql<Date>`now()`,
            expires_at: sql<Date>`now() + make_interval(hours => ${RETENTION_HOURS})`,
          })
          .where((eb) =>
            eb.or([
              eb('idempotency_keys.expires_at', '<=', sql<Date>`now()`),
              eb.and([
                eb('idempotency_keys.state', '=', 'in_progress'),
                eb('idempotency_keys.created_at', '<', sql<Date>`now() - make_interval(secs => ${ABANDONED_AFTER_SECONDS})`),
              ]),
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
      throw conflict('A request with this Idempotency-Key is still being processed; retry after it has finished.');
    }
    reply.code(existing.status_code ?? 200).header('idempotent-replayed', 'true');
    if (existing.content_type) reply.type(existing.content_type);
    return reply.send(existing.response_body ?? '');
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotencyClaim;
    if (!claim) return payload;
    request.idempotencyClaim = null;
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
        status_code: reply.statusCode,
        content_type: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
        response_body: payload,
      })
      .execute();
    return payload;
  });

  const sweeper = setInterval(() => {
    db.deleteFrom('idempotency_keys')
      .where('expires_at', '<=', sql<Date>`now()`)
      .execute()
      .catch((error: unknown) => app.log.warn({ err: error }, 'idempotency key sweep failed'));
  }, SWEEP_INTERVAL_MS);
  sweeper.unref();
  app.addHook('onClose', async () => clearInterval(sweeper));
}
