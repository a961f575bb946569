import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { deliveryHeaders } from '../../events/signing.js';
import type { DispatcherMetrics } from './metrics.js';
import { failInactive, fetchPending, releaseEndpoint, type ClaimedEndpoint } from './queue.js';
import type { RecordedOutcome, StatusRecorder } from './recorder.js';
import type { WebhookSender } from './sender.js';

export interface WorkerContext {
  db: Kysely<DB>;
  owner: string;
  recorder: StatusRecorder;
  sender: WebhookSender;
  metrics: DispatcherMetrics;
  /** Decrypts webhook_endpoints.secret_ciphertext. */
  openSecret: (ciphertext: string) => string;
  /** Aborts in-flight POSTs on shutdown. */
  stop: AbortSignal;
  batchSize: number;
  /** Deliveries sent before giving the endpoint back, so endpoints beyond the concurrency limit get their turn. */
  maxPerClaim: number;
}

/**
 * Sends one claimed endpoint's pending deliveries, one at a time in sequence order: mark `sending` (committed),
 * POST, record the outcome (committed with the next mark). Ends when the queue is empty, the turn is used up, the
 * lease is lost or the endpoint stops being active, and always gives the lease back.
 */
export async function runEndpoint(context: WorkerContext, endpoint: ClaimedEndpoint): Promise<void> {
  const { db, owner, recorder, sender, metrics, stop } = context;
  const step = { organizationId: endpoint.organizationId, webhookId: endpoint.id };
  let last: RecordedOutcome | undefined;
  try {
    if (!endpoint.isActive) {
      metrics.outcomes.inc({ outcome: 'inactive' }, await failInactive(db, owner, endpoint));
      return;
    }
    let sent = 0;
    while (!stop.aborted && sent < context.maxPerClaim) {
      const batch = await fetchPending(db, endpoint, context.batchSize);
      if (batch.length === 0) break;
      for (const delivery of batch) {
        if (stop.aborted) break;
        const marked = await recorder.submit({ ...step, outcome: last, next: delivery.id });
        last = undefined;
        if (!marked) return;
        const body = Buffer.from(delivery.body, 'utf8');
        const secret = marked.secretCiphertext === null ? null : context.openSecret(marked.secretCiphertext);
        const headers = deliveryHeaders(secret, {
          idempotencyKey: delivery.idempotencyKey,
          timestampSeconds: Math.floor(Date.now() / 1000),
          body,
        });
        const outcome = await sender.send(marked.url, body, headers, stop);
        metrics.outcomes.inc({ outcome: outcome.status });
        metrics.duration.observe({ outcome: outcome.status }, outcome.durationMs / 1000);
        last = { organizationId: endpoint.organizationId, deliveryId: delivery.id, outcome };
        sent++;
      }
    }
  } finally {
    // The last outcome is written even when stopping, so an aborted POST is recorded "interrupted", not left sending.
    if (last) await recorder.submit({ ...step, outcome: last });
    await releaseEndpoint(db, owner, endpoint);
  }
}
