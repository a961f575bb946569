import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { SendOutcome } from './sender.js';
import { leaseInterval } from './queue.js';

export interface RecordedOutcome {
  organizationId: string;
  deliveryId: string;
  outcome: SendOutcome;
}

/** One step of an endpoint's worker: the outcome of the delivery it just sent, and the next one to mark `sending`. */
export interface Step {
  organizationId: string;
  webhookId: string;
  outcome?: RecordedOutcome | undefined;
  /** The delivery about to be sent; omitted when the worker only records its last outcome. */
  next?: string | undefined;
}

/** Where to send the marked delivery: the endpoint as it is now (a PUT may have changed the URL or the secret). */
export interface Marked {
  url: string;
  secretCiphertext: string | null;
}

interface Waiting {
  step: Step;
  resolve: (marked: Marked | null) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for the dispatcher's status writes. Every delivery needs two committed writes (`sending` before the
 * POST, the outcome after), and per endpoint they are strictly sequential; across endpoints they are not. Steps
 * submitted while a flush runs wait for the next one, so N endpoints in flight cost one statement per round instead
 * of N: throughput grows with the number of busy endpoints while each endpoint keeps its order.
 */
export class StatusRecorder {
  private queue: Waiting[] = [];
  private flushing = false;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly owner: string,
    private readonly leaseMs: number,
  ) {}

  /**
   * Commits the step. Resolves with where to send `next`, or null when it must not be sent: the lease was lost,
   * the endpoint became inactive or was deleted, or the delivery is no longer pending.
   */
  submit(step: Step): Promise<Marked | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ step, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      try {
        const marked = await this.write(batch.map((waiting) => waiting.step));
        for (const { step, resolve } of batch) resolve(step.next ? (marked.get(step.next) ?? null) : null);
      } catch (error) {
        for (const { reject } of batch) reject(error);
      }
    }
    this.flushing = false;
  }

  /**
   * One statement (webhook_dispatch_step, migration 0007, so its plan is cached): lock the batch's endpoints in key
   * order (so it never deadlocks with a recording transaction or an endpoint's deletion, which lock endpoints first
   * too, then deliveries); record the outcomes, unconditionally, since they are what happened even if a row was
   * meanwhile declared interrupted; where this dispatcher still holds the lease and the endpoint is active, extend
   * the lease to cover the POST about to start and mark the next delivery `sending`.
   */
  private async write(steps: readonly Step[]): Promise<Map<string, Marked>> {
    const outcomes = steps.flatMap((step) => (step.outcome ? [{ webhookId: step.webhookId, ...step.outcome }] : []));
    const marks = steps.filter((step) => step.next !== undefined);
    const { rows } = await sql<{ id: string; url: string; secret_ciphertext: string | null }>`
      select delivery_id as id, delivery_url as url, delivery_secret as secret_ciphertext from webhook_dispatch_step(
        ${this.owner}, ${leaseInterval(this.leaseMs)},
        ${outcomes.map((o) => o.organizationId)}::uuid[], ${outcomes.map((o) => o.webhookId)}::uuid[],
        ${outcomes.map((o) => o.deliveryId)}::uuid[], ${outcomes.map((o) => o.outcome.status)}::text[],
        ${outcomes.map((o) => o.outcome.error)}::text[], ${outcomes.map((o) => o.outcome.responseStatus)}::int[],
        ${marks.map((m) => m.organizationId)}::uuid[], ${marks.map((m) => m.webhookId)}::uuid[], ${marks.map((m) => m.next!)}::uuid[])`.execute(
      this.db,
    );
    return new Map(rows.map((row) => [row.id, { url: row.url, secretCiphertext: row.secret_ciphertext }]));
  }
}
