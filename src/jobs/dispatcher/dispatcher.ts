import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import type { Registry } from 'prom-client';
import type { Config } from '../../config/index.js';
import type { Database } from '../../db/engine.js';
import { createSecretBox } from '../../core/secret-box.js';
import { createDispatcherMetrics } from './metrics.js';
import { claimEndpoints, failInterrupted, releaseAll, type ClaimedEndpoint } from './queue.js';
import { WebhookSender } from './sender.js';
import { listenForDeliveries, type Listener } from './wake.js';
import { runEndpoint, type WorkerContext } from './worker.js';
import type { Logger } from '../../util/logger.js';
import { wakeableSleep } from '../../util/wakeable-sleep.js';

export interface DispatcherOptions {
  database: Database;
  config: Pick<
    Config,
    'databaseUrl' | 'secretKey' | 'webhookTimeoutMs' | 'allowHttpWebhooks' | 'webhookAllowPrivateHosts'
  >;
  logger: Logger;
  /** Where to register delivery metrics (the app's registry in `serve`). */
  registry?: Registry | undefined;
  /** Test only: certificates to trust for receivers. */
  ca?: string | string[] | undefined;
  /** Endpoints sent to in parallel (each one still strictly in order). */
  concurrency?: number;
  /** Idle poll interval; LISTEN/NOTIFY wakes it sooner on PostgreSQL. */
  pollMs?: number;
  /** How long a claim stays valid without progress; must exceed the send time-out. */
  leaseMs?: number;
  /** Deliveries of one endpoint claimed at once (sent in order, each marked `sending` just before its POST). */
  windowSize?: number;
  /** Windows an endpoint gets before it is given back, so endpoints beyond the concurrency limit get their turn. */
  maxWindows?: number;
  /** On stop, how long in-flight POSTs may finish before they are aborted (and recorded "interrupted"). */
  stopGraceMs?: number;
}

export interface Dispatcher {
  /** The lease_owner value of this dispatcher. */
  readonly owner: string;
  /** Look for due deliveries now. */
  wake(): void;
  stop(): Promise<void>;
}

const SWEEP_EVERY_MS = 5_000;
const MAX_BACKOFF_MS = 5_000;

/**
 * Delivers recorded webhook deliveries (docs/api.md#the-dispatcher): claims endpoints with due deliveries under a
 * lease, sends each endpoint's queue in order on its own task (a slow receiver holds up only itself), many endpoints at
 * once. Several dispatchers on one PostgreSQL share the work: a claim is exclusive, and a dead one's claims expire.
 */
export function startDispatcher(options: DispatcherOptions): Dispatcher {
  const { database, config, logger } = options;
  if (!config.secretKey)
    throw new Error('The dispatcher needs the secret key that encrypts webhook secrets (PATRON_SECRET_KEY).');
  const db = database.db;
  const owner = `${hostname()}:${process.pid}:${randomUUID()}`;
  const concurrency = options.concurrency ?? 64;
  const pollMs = options.pollMs ?? (database.engine === 'postgres' ? 250 : 100);
  const leaseMs = options.leaseMs ?? config.webhookTimeoutMs + 5_000;
  // A window starts a POST only while the lease still covers its time-out plus a second for the outcome write.
  if (leaseMs < config.webhookTimeoutMs + 2_000)
    throw new Error('The dispatcher lease must outlast the webhook time-out by 2 s.');
  const box = createSecretBox(config.secretKey);
  const stopController = new AbortController();
  // Every POST in flight (up to `concurrency` of them) listens for the stop.
  setMaxListeners(0, stopController.signal);
  const sender = new WebhookSender({
    timeoutMs: config.webhookTimeoutMs,
    policy: { allowHttp: config.allowHttpWebhooks, allowPrivateHosts: config.webhookAllowPrivateHosts },
    ca: options.ca,
  });
  const context: WorkerContext = {
    db,
    owner,
    sender,
    metrics: createDispatcherMetrics(options.registry),
    openSecret: (ciphertext) => box.open(ciphertext),
    stop: stopController.signal,
    leaseMs,
    timeoutMs: config.webhookTimeoutMs,
    windowSize: options.windowSize ?? 50,
    maxWindows: options.maxWindows ?? 20,
  };
  const active = new Map<string, Promise<void>>();

  let stopped = false;
  const { sleep, wake, reset: resetWake } = wakeableSleep(() => stopped);

  const spawn = (endpoint: ClaimedEndpoint) => {
    const key = `${endpoint.organizationId}/${endpoint.id}`;
    const task = runEndpoint(context, endpoint)
      .catch((error: unknown) =>
        logger.error({ err: error, webhookId: endpoint.id }, 'webhook dispatch failed for an endpoint'),
      )
      .finally(() => {
        active.delete(key);
        wake();
      });
    active.set(key, task);
  };

  const loop = async () => {
    let nextSweep = 0;
    let failures = 0;
    while (!stopped) {
      resetWake();
      try {
        if (Date.now() >= nextSweep) {
          const interrupted = await failInterrupted(db, leaseMs);
          if (interrupted > 0)
            logger.warn({ interrupted }, 'recorded deliveries sent by hand and interrupted as failed');
          nextSweep = Date.now() + SWEEP_EVERY_MS;
        }
        const free = concurrency - active.size;
        if (free > 0) {
          for (const endpoint of await claimEndpoints(db, owner, free, leaseMs)) {
            if (endpoint.interrupted > 0)
              logger.warn(
                { webhookId: endpoint.id, interrupted: endpoint.interrupted },
                "recorded a stopped dispatcher's window as failed (interrupted)",
              );
            spawn(endpoint);
          }
        }
        failures = 0;
      } catch (error) {
        if (stopped) break;
        failures++;
        logger.error({ err: error }, 'webhook dispatcher could not reach the database; retrying');
        await sleep(Math.min(pollMs * 2 ** failures, MAX_BACKOFF_MS));
        continue;
      }
      await sleep(pollMs);
    }
  };

  const listener: Listener | undefined =
    database.engine === 'postgres' && config.databaseUrl
      ? listenForDeliveries(config.databaseUrl, wake, (error) =>
          logger.warn({ err: error }, 'webhook dispatcher LISTEN connection failed; polling'),
        )
      : undefined;
  const running = loop();
  logger.info({ owner, concurrency }, 'webhook dispatcher started');

  return {
    owner,
    wake,
    async stop() {
      if (stopped) return;
      stopped = true;
      wake();
      await running;
      const grace = setTimeout(
        () => stopController.abort(),
        options.stopGraceMs ?? Math.min(2_000, config.webhookTimeoutMs),
      );
      await Promise.allSettled([...active.values()]);
      clearTimeout(grace);
      await releaseAll(db, owner).catch((error: unknown) =>
        logger.warn({ err: error }, 'could not release webhook leases'),
      );
      await listener?.close();
      await sender.close();
    },
  };
}
