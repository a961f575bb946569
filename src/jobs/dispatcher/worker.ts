import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { deliveryHeaders } from '../../events/signing.js';
import type { DispatcherMetrics } from './metrics.js';
import {
  checkEndpoint,
  claimWindow,
  failInactive,
  releaseEndpoint,
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
  /** Decrypts webhook_endpoints.secret_ciphertext. */
  openSecret: (ciphertext: string) => string;
  /** Aborts in-flight POSTs on shutdown. */
  stop: AbortSignal;
  leaseMs: number;
  timeoutMs: number;
  /** Deliveries claimed at once: the most a crash can leave recorded "interrupted" for one endpoint. */
  windowSize: number;
  /** Windows sent before giving the endpoint back, so endpoints beyond the concurrency limit get their turn. */
  maxWindows: number;
  /** A POST starts only if the endpoint was seen active (with the URL and secret used) at most this long before. */
  recheckMs: number;
}

/** Time kept between the last POST a window may start and the lease's end, for the outcome write. */
const LEASE_MARGIN_MS = 1_000;

/**
 * Sends one claimed endpoint's deliveries in sequence order, a window at a time: claim a window (one statement),
 * POST its deliveries one after another, each only after the previous one's outcome, then write all their outcomes
 * (one statement). A window ends early when the lease would not cover another POST, on shutdown, or when the
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
      const window = await claimWindow(db, owner, endpoint, position, context.windowSize, context.leaseMs);
      if (!window) return;
      if (window.through === position) {
        released = true;
        return;
      }
      const { outcomes, next, complete } = await sendWindow(context, endpoint, window, claimedAt);
      await writeOutcomes(db, endpoint.organizationId, outcomes);
      position = complete ? window.through : next;
      if (!complete) return;
    }
  } finally {
    if (!released) await releaseEndpoint(db, owner, endpoint, position);
  }
}

/**
 * POSTs a window's deliveries in order. Returns their outcomes, and, when it stopped early, the position before
 * the first delivery it did not attempt.
 */
async function sendWindow(
  context: WorkerContext,
  endpoint: ClaimedEndpoint,
  window: Window,
  claimedAt: number,
): Promise<{ outcomes: Outcome[]; next: number; complete: boolean }> {
  const { sender, metrics, stop } = context;
  const lastStart = claimedAt + context.leaseMs - context.timeoutMs - LEASE_MARGIN_MS;
  const outcomes: Outcome[] = [];
  let target: Target = window;
  let checkedAt = claimedAt;
  let key = signingKey(context, target);
  for (const delivery of window.deliveries) {
    const now = Date.now();
    // Everything before this delivery is settled (sent, or rows sent by hand that the window skipped).
    const stopBefore = () => ({ outcomes, next: delivery.sequence - 1, complete: false });
    if (stop.aborted || now > lastStart) return stopBefore();
    if (now - checkedAt > context.recheckMs) {
      const current = await checkEndpoint(context.db, context.owner, endpoint);
      if (!current) return stopBefore();
      if (current.url !== target.url || current.secretCiphertext !== target.secretCiphertext)
        key = signingKey(context, current);
      target = current;
      checkedAt = Date.now();
    }
    const body = Buffer.from(delivery.body, 'utf8');
    const attemptedAt = new Date();
    const headers = deliveryHeaders(key, {
      idempotencyKey: delivery.idempotencyKey,
      timestampSeconds: Math.floor(attemptedAt.getTime() / 1000),
      body,
    });
    const outcome = await sender.send(target.url, body, headers, stop);
    metrics.outcomes.inc({ outcome: outcome.status });
    metrics.duration.observe({ outcome: outcome.status }, outcome.durationMs / 1000);
    outcomes.push({ deliveryId: delivery.id, url: target.url, attemptedAt, outcome });
  }
  return { outcomes, next: window.through, complete: true };
}

function signingKey(context: WorkerContext, target: Target): Buffer | null {
  return target.secretCiphertext === null ? null : Buffer.from(context.openSecret(target.secretCiphertext), 'utf8');
}
