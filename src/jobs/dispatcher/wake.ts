import pg from 'pg';
import { DELIVERIES_CHANNEL } from '../../events/outbox.js';

const RECONNECT_MS = 5_000;

export interface Listener {
  close(): Promise<void>;
}

/**
 * LISTEN for the recording transactions' NOTIFY (sent at their commit) on a connection of its own, so a new
 * delivery wakes the dispatcher at once instead of at the next poll. Best effort: while the connection is down
 * the poll still finds everything, only later.
 */
export function listenForDeliveries(
  databaseUrl: string,
  onNotify: () => void,
  onError: (error: unknown) => void,
): Listener {
  let client: pg.Client | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const connect = async () => {
    if (closed) return;
    const next = new pg.Client({ connectionString: databaseUrl });
    client = next;
    next.on('notification', () => onNotify());
    next.on('error', (error) => {
      onError(error);
      retry(next);
    });
    try {
      await next.connect();
      await next.query(`listen ${DELIVERIES_CHANNEL}`);
      // Whatever committed while the listener was down is due now.
      onNotify();
    } catch (error) {
      onError(error);
      retry(next);
    }
  };
  const retry = (failed: pg.Client) => {
    if (closed || client !== failed || timer) return;
    void failed.end().catch(() => {});
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, RECONNECT_MS);
    timer.unref();
  };
  void connect();

  return {
    close: async () => {
      closed = true;
      if (timer) clearTimeout(timer);
      await client?.end().catch(() => {});
    },
  };
}
