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
   * One statement: lock the batch's endpoints in key order (so it never deadlocks with a recording transaction or
   * an endpoint's deletion, which lock endpoints first too, then deliveries); record the outcomes, unconditionally,
   * since they are what happened even if a row was meanwhile declared interrupted; where this dispatcher still
   * holds the lease and the endpoint is active, extend the lease to cover the POST about to start and mark the next
   * delivery `sending`.
   */
  private async write(steps: readonly Step[]): Promise<Map<string, Marked>> {
    const outcomes = steps.flatMap((step) => (step.outcome ? [{ webhookId: step.webhookId, ...step.outcome }] : []));
    const marks = steps.filter((step) => step.next !== undefined);
    const { rows } = await sql<{ id: string; url: string; secret_ciphertext: string | null }>`
      with outcome_input as (
        select * from unnest(
          ${outcomes.map((o) => o.organizationId)}::uuid[], ${outcomes.map((o) => o.webhookId)}::uuid[],
          ${outcomes.map((o) => o.deliveryId)}::uuid[], ${outcomes.map((o) => o.outcome.status)}::text[],
          ${outcomes.map((o) => o.outcome.error)}::text[], ${outcomes.map((o) => o.outcome.responseStatus)}::int[]
        ) as o(organization_id, webhook_id, id, status, error, response_status)
      ),
      mark as (
        select * from unnest(
          ${marks.map((m) => m.organizationId)}::uuid[], ${marks.map((m) => m.webhookId)}::uuid[], ${marks.map((m) => m.next!)}::uuid[]
        ) as m(organization_id, webhook_id, delivery_id)
      ),
      locked as (
        select e.organization_id, e.id, e.lease_owner from webhook_endpoints e
        where (e.organization_id, e.id) in (
          select organization_id, webhook_id from outcome_input union select organization_id, webhook_id from mark)
        order by e.organization_id, e.id
        for update
      ),
      outcome as (
        update webhook_deliveries d
        set status = o.status, error = o.error, response_status = o.response_status, updated_at = now()
        from outcome_input o join locked l on l.organization_id = o.organization_id and l.id = o.webhook_id
        where d.organization_id = o.organization_id and d.id = o.id
      ),
      leased as (
        update webhook_endpoints e set lease_expires_at = now() + ${leaseInterval(this.leaseMs)}
        from locked l
        where e.organization_id = l.organization_id and e.id = l.id and l.lease_owner = ${this.owner}
          and (l.organization_id, l.id) in (select organization_id, webhook_id from mark)
        returning e.organization_id, e.id, e.url, e.secret_ciphertext, e.is_active
      )
      update webhook_deliveries d set status = 'sending', url = l.url, attempted_at = now(), updated_at = now()
      from mark m join leased l on l.organization_id = m.organization_id and l.id = m.webhook_id
      where l.is_active and d.organization_id = m.organization_id and d.id = m.delivery_id
        and d.webhook_id = m.webhook_id and d.status = 'pending'
      returning d.id, l.url, l.secret_ciphertext`.execute(this.db);
    return new Map(rows.map((row) => [row.id, { url: row.url, secretCiphertext: row.secret_ciphertext }]));
  }
}
