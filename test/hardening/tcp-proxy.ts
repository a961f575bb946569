/**
 * A TCP proxy the test controls, standing between a Patron process and the machine's PostgreSQL or Redis: cutting
 * it resets every open connection and every new one, the way a restarting server looks to its clients, without
 * touching the shared server other test runs use.
 */
import { connect, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  readonly isUp: boolean;
  /** Connections accepted (and forwarded) so far. */
  readonly forwarded: number;
  /** Local ports of the open connections to the target: how the target sees this proxy's clients. */
  upstreamPorts(): number[];
  /** New connections are reset on arrival until restore(); open ones carry on (the server may still end them). */
  refuseNew(): void;
  /** refuseNew(), and every open connection is reset too. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const open = new Set<{ client: Socket; upstream: Socket }>();
  let up = true;
  let forwarded = 0;

  const server = createServer((client) => {
    if (!up) {
      client.on('error', () => {});
      client.resetAndDestroy();
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

  return {
    port,
    get isUp() {
      return up;
    },
    get forwarded() {
      return forwarded;
    },
    upstreamPorts: () => [...open].map(({ upstream }) => upstream.localPort).filter((port): port is number => port !== undefined),
    refuseNew() {
      up = false;
    },
    cut() {
      up = false;
      for (const { client, upstream } of open) {
        client.resetAndDestroy();
        upstream.destroy();
      }
      open.clear();
    },
    restore() {
      up = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        up = false;
        for (const { client, upstream } of open) {
          client.destroy();
          upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
