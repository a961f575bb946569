import { call, RemoteError, remoteOf, type Remote, type RemoteOptions } from './remote.js';
import { wakeableSleep } from '../util/wakeable-sleep.js';

export interface TailOptions extends RemoteOptions {
  org: string;
  json?: boolean | undefined;
  intervalMs?: number | undefined;
}

interface Envelope {
  id: string;
  event: string;
  timestamp: string;
  data: unknown;
}

/**
 * How far back each poll reads again, by the ids' time: an event's id is drawn as its change records its events, the
 * last step before its transaction commits, so an event can become visible after a newer one only while that
 * transaction commits (docs/api.md#events-api, "Order and concurrent writes"). Ten seconds covers a recording of
 * thousands of events on a loaded machine; what was printed is remembered for that long, so nothing prints twice.
 */
const LOOKBACK_MS = 10_000;
const PAGE = 250;
const DEFAULT_INTERVAL_MS = 500;

/** The millisecond a UUID v7 was made (its first 48 bits). */
const timeOfId = (id: string): number => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
/** The smallest UUID v7 of a millisecond: every id made at or after it sorts at or above it. */
const idFloorAt = (ms: number): string => {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0').slice(-12);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
};

/** Every event whose id is at or above `floor`, newest first: pages from the newest until one reaches below it. */
async function eventsSince(remote: Remote, floor: string): Promise<Envelope[]> {
  const events: Envelope[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: Envelope[]; nextCursor: string | null } = await call(
      remote,
      'GET',
      `/v1/events?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    const within = page.data.filter((event) => event.id >= floor);
    events.push(...within);
    cursor = within.length === page.data.length ? page.nextCursor : null;
  } while (cursor);
  return events;
}

/** One line a person reads: type, id, the changed record's id, time. */
function line(event: Envelope): string {
  const objectId = (event.data as { id?: unknown } | null)?.id;
  return `${event.event.padEnd(34)} ${event.id}  ${typeof objectId === 'string' ? objectId : '-'.padEnd(36)}  ${event.timestamp}`;
}

/**
 * `patron events tail --org ID`: prints each new event of the organization as it commits, oldest first, until Ctrl-C
 * (docs/api.md#events-api). It polls GET /v1/events of a running server, so it works the same on either engine, and
 * re-reads the last LOOKBACK_MS of ids each time so an event that commits after a newer one is still printed, once.
 * The key decides the organization; `--org` names the one the developer means to watch, and a key of another stops
 * the command rather than showing someone else's events.
 */
export async function tailEvents(options: TailOptions): Promise<void> {
  let stopping = false;
  const pause = wakeableSleep(() => stopping);
  const stop = () => {
    stopping = true;
    pause.wake();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    const remote = remoteOf(options);
    const organization = await call<{ id: string; name: string }>(remote, 'GET', '/v1/organization');
    if (organization.id !== options.org) {
      throw new RemoteError(
        `The key belongs to organization ${organization.id} (${organization.name}), not ${options.org}: use a key of the organization to tail.`,
      );
    }
    // What was already there when the tail started is not new: it is remembered, not printed.
    const printed = new Map<string, number>();
    const [newest] = (await call<{ data: Envelope[] }>(remote, 'GET', '/v1/events?limit=1')).data;
    let horizon = newest ? timeOfId(newest.id) : Date.now();
    for (const event of await eventsSince(remote, idFloorAt(horizon - LOOKBACK_MS)))
      printed.set(event.id, timeOfId(event.id));
    process.stderr.write(
      `Tailing the events of ${organization.name} (${organization.id}) at ${remote.base}; Ctrl-C to stop.\n`,
    );
    const interval = options.intervalMs ?? DEFAULT_INTERVAL_MS;
    while (!stopping) {
      pause.reset();
      let fresh: Envelope[];
      try {
        fresh = await eventsSince(remote, idFloorAt(horizon - LOOKBACK_MS));
      } catch (error) {
        // A server restarting is waited for; a refusal (a revoked key, a lost permission) ends the tail.
        if (error instanceof RemoteError && error.status !== undefined && error.status < 500) throw error;
        process.stderr.write(`${(error as Error).message}; trying again.\n`);
        await pause.sleep(Math.max(interval, 2_000));
        continue;
      }
      for (const event of fresh.reverse()) {
        if (printed.has(event.id)) continue;
        printed.set(event.id, timeOfId(event.id));
        process.stdout.write(`${options.json ? JSON.stringify(event) : line(event)}\n`);
      }
      horizon = Math.max(horizon, ...fresh.map((event) => timeOfId(event.id)));
      for (const [id, at] of printed) if (at < horizon - LOOKBACK_MS) printed.delete(id);
      await pause.sleep(interval);
    }
  } catch (error) {
    process.stderr.write(`${error instanceof RemoteError ? error.message : String(error)}\n`);
    process.exitCode = 1;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
