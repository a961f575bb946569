import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { deliveryHeaders, signingKeys, type SigningKeys } from '../../events/signing.js';
import { renderEnvelope } from '../../versions/index.js';
import type { DispatcherMetrics } from './metrics.js';
import {
  claimWindow,
  failInactive,
  releaseEndpoint,
  startDelivery,
  writeOutcomes,
  type ClaimedEndpoint,
  type Outcome,
  type Target,
  type Window,
} from './queue.js';
import type { WebhookSender } from './sender.js';

export interface WorkerContext {
  db: Kysely<DB>;
  owner: string;
  sender: WebhookSender;
  metrics: DispatcherMetrics;
  /** Decrypts webhook_endpoints.secret_ciphertext (and previous_secret_ciphertext). */
  openSecret: (ciphertext: string) => string;
  /** Aborts in-flight POSTs on shutdown. */
  stop: AbortSignal;
  leaseMs: number;
  timeoutMs: number;
  /** Deliveries claimed at once, sent in order; a crash leaves only the one being sent "interrupted". */
  windowSize: number;
  /** Windows sent before giving the endpoint back, so endpoints beyond the concurrency limit get their turn. */
  maxWindows: number;
}

/** Time kept between the last POST a window may start and the lease's end, for the outcome write. */
const LEASE_MARGIN_MS = 1_000;

/**
 * Sends one claimed endpoint's deliveries in sequence order, a window at a time: claim a window (one statement),
 * then for each delivery one statement that writes the previous outcome and marks it `sending` (startDelivery) and
 * its POST, each only after the previous one's outcome; the last outcome is written when the window ends. A window
 * ends early when the lease would not cover another POST, on shutdown, or when the
 * endpoint stops being active, is deleted or the lease is lost; what it did not attempt goes back to the queue.
 * The worker ends when the queue is empty (the claim that finds it so releases the endpoint), the turn is used up,
 * or the endpoint is no longer ours, and always gives the lease back.
 */
export async function runEndpoint(context: WorkerContext, endpoint: ClaimedEndpoint): Promise<void> {
  const { db, owner, metrics, stop } = context;
  let position = endpoint.position;
  let released = false;
  try {
    if (!endpoint.isActive) {
      metrics.outcomes.inc({ outcome: 'inactive' }, await failInactive(db, owner, endpoint));
      released = true;
      return;
    }
    for (let turn = 0; turn < context.maxWindows && !stop.aborted; turn++) {
      const claimedAt = Date.now();
      const window = await claimWindow(db, owner, endpoint, {
        position,
        size: context.windowSize,
        leaseMs: context.leaseMs,
      });
      if (!window) return;
      if (window.through === position) {
        released = true;
        return;
      }
      const { unwritten, next, complete } = await sendWindow(context, endpoint, window, claimedAt);
      await writeOutcomes(db, endpoint.organizationId, unwritten);
      position = complete ? window.through : next;
      if (!complete) return;
    }
  } finally {
    if (!released) await releaseEndpoint(db, owner, endpoint, position);
  }
}

/**
 * POSTs a window's deliveries in order. Returns the outcomes not yet written and, when it stopped early, the
 * position before the first delivery it did not attempt.
 */
async function sendWindow(
  context: WorkerContext,
  endpoint: ClaimedEndpoint,
  window: Window,
  claimedAt: number,
): Promise<{ unwritten: Outcome[]; next: number; complete: boolean }> {
  const { sender, metrics, stop } = context;
  const lastStart = claimedAt + context.leaseMs - context.timeoutMs - LEASE_MARGIN_MS;
  // The last POST's outcome, written by the next startDelivery or, at the end, by the caller.
  let previous: Outcome | undefined;
  const unwritten = () => (previous ? [previous] : []);
  let target: Target = window;
  let keys = keysFor(context, target);
  for (const delivery of window.deliveries) {
    // Everything before this delivery is settled (sent, or rows sent by hand that the window skipped).
    const stopBefore = () => ({ unwritten: unwritten(), next: delivery.sequence - 1, complete: false });
    if (stop.aborted || Date.now() > lastStart) return stopBefore();
    const attemptedAt = new Date();
    // The endpoint as it is now (docs/api.md#checks-at-send-time), and the mark that makes a crash cost at most this
    // delivery; it also writes the previous outcome.
    const current = await startDelivery(context.db, context.owner, endpoint, {
      deliveryId: delivery.id,
      attemptedAt,
      previous,
    });
    previous = undefined;
    if (!current) return stopBefore();
    if (
      current.secretCiphertext !== target.secretCiphertext ||
      current.previousSecretCiphertext !== target.previousSecretCiphertext
    ) {
      keys = keysFor(context, current);
    }
    target = current;
    // Rendered at send time for the endpoint's version: the text as stored at the newest (docs/api.md#api-versions).
    const body = Buffer.from(renderEnvelope(delivery.body, endpoint.apiVersion), 'utf8');
    const headers = deliveryHeaders(keys, {
      idempotencyKey: delivery.idempotencyKey,
      timestampSeconds: Math.floor(Date.now() / 1000),
      body,
    });
    headers['patron-version'] = endpoint.apiVersion;
    const outcome = await sender.send(target.url, body, headers, stop);
    metrics.outcomes.inc({ outcome: outcome.status });
    metrics.duration.observe({ outcome: outcome.status }, outcome.durationMs / 1000);
    previous = { deliveryId: delivery.id, url: target.url, attemptedAt, outcome };
  }
  return { unwritten: unwritten(), next: window.through, complete: true };
}

/** The signing keys of the endpoint's secrets, decrypted once per window and again only when they change. */
function keysFor(context: WorkerContext, target: Target): SigningKeys | null {
  const open = (ciphertext: string | null) => (ciphertext === null ? null : context.openSecret(ciphertext));
  return signingKeys(open(target.secretCiphertext), open(target.previousSecretCiphertext));
}
