/**
 * A TCP proxy the test controls, standing between a Patron process and the machine's PostgreSQL or Redis: cutting
 * it resets every open connection and every new one, the way a restarting server looks to its clients; stalling it
 * keeps connections open but silent, the way a network partition or a frozen server looks. The shared servers other
 * test runs use are never touched.
 */
import { connect, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Connections accepted (and forwarded) so far. */
  readonly forwarded: number;
  /** Local ports of the open connections to the target: how the target sees this proxy's clients. */
  upstreamPorts(): number[];
  /** New connections are reset on arrival until restore(); open ones carry on (the server may still end them). */
  refuseNew(): void;
  /** refuseNew(), and every open connection is reset too. */
  cut(): void;
  /** Nothing passes any more, in either direction, and nothing is closed: new connections are accepted and held. */
  stall(): void;
  /** Back to forwarding; connections held or stalled meanwhile are reset (the partition ended them). */
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const open = new Set<{ client: Socket; upstream: Socket }>();
  const held = new Set<Socket>();
  let mode: 'forward' | 'refuse' | 'stall' = 'forward';
  let forwarded = 0;

  const server = createServer((client) => {
    client.on('error', () => {});
    if (mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    if (mode === 'stall') {
      client.pause();
      held.add(client);
      client.on('close', () => held.delete(client));
      return;
    }
    forwarded += 1;
    const upstream = connect(targetPort, targetHost);
    const pair = { client, upstream };
    open.add(pair);
    const end = () => {
      open.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  const resetAll = () => {
    for (const { client, upstream } of open) {
      client.resetAndDestroy();
      upstream.destroy();
    }
    open.clear();
    for (const client of held) client.resetAndDestroy();
    held.clear();
  };

  return {
    port,
    get forwarded() {
      return forwarded;
    },
    upstreamPorts: () =>
      [...open].map(({ upstream }) => upstream.localPort).filter((port): port is number => port !== undefined),
    refuseNew() {
      mode = 'refuse';
    },
    cut() {
      mode = 'refuse';
      resetAll();
    },
    stall() {
      mode = 'stall';
      for (const { client, upstream } of open) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    restore() {
      if (mode === 'stall') resetAll();
      mode = 'forward';
    },
    close: () =>
      new Promise<void>((resolve) => {
        mode = 'refuse';
        resetAll();
        server.close(() => resolve());
      }),
  };
}
