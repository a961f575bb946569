/**
 * Slowloris clients in a process of their own, so that the bytes they trickle do not share an event loop with the
 * load whose latency is measured. Run as `node --import tsx test/hardening/slowloris.ts` with an IPC channel; the
 * parent sends `{ open: <options> }` and gets `{ opened }` once every socket is connected (they are opened one after
 * another over `spreadMs`), then `{ close: true }` and gets `{ closed: <outcomes> }`.
 *
 * Four kinds of socket, in equal numbers: headers trickled a byte at a time from the request line on (no key);
 * a request line and a key, then more header bytes trickled; whole headers with a key, then a body trickled; the same
 * without a key. Each writes one byte every 250-750 ms until the server closes it; a socket the server closes is
 * replaced by a new one of its kind, so `count` stay open.
 */
import { connect, type Socket } from 'node:net';

export type SlowKind = 'headers' | 'headers with key' | 'body with key' | 'body';
export const SLOW_KINDS: SlowKind[] = ['headers', 'headers with key', 'body with key', 'body'];

export interface SlowOptions {
  port: number;
  key: string;
  count: number;
  /** The sockets are opened one after another over this many ms (0: all at once). */
  spreadMs: number;
}

export interface SlowOutcome {
  kind: SlowKind;
  /** The status lines the server wrote, in order (empty when it closed without a word). */
  answers: string[];
  /** The error code of the last answer's envelope, when it had one. */
  code?: string;
  /** How long the socket was open. */
  openMs: number;
  /** How long it was open after its first byte: the server times a request from there. */
  requestMs: number;
  /** Bytes the client wrote. */
  sent: number;
  /** True when the server closed it; false when the client closed it at the end of the run. */
  closedByServer: boolean;
}

export type SlowMessage = { ready: true } | { opened: number } | { closed: SlowOutcome[] };

function start(kind: SlowKind, options: SlowOptions): { head: string; trickle: () => string } {
  const host = `Host: 127.0.0.1:${options.port}\r\n`;
  const key = `Authorization: Bearer ${options.key}\r\n`;
  let n = 0;
  const headerByte = () => 'abcdefghijklmnopqrstuvwxyz'[n++ % 26]!;
  switch (kind) {
    case 'headers': {
      // Not even the request line arrives in time: every byte from the first one trickles.
      const text = `GET /v1/organization HTTP/1.1\r\n${host}X-Slow: `;
      let i = 0;
      return { head: '', trickle: () => text[i++] ?? headerByte() };
    }
    case 'headers with key':
      return { head: `GET /v1/organization HTTP/1.1\r\n${host}${key}X-Slow: `, trickle: headerByte };
    case 'body with key':
    case 'body': {
      const head =
        `POST /v1/sites HTTP/1.1\r\n${host}${kind === 'body' ? '' : key}` +
        'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"name":"';
      return { head, trickle: () => 's' };
    }
  }
}

function run(): void {
  let options: SlowOptions | undefined;
  const sockets = new Set<Socket>();
  const outcomes: SlowOutcome[] = [];
  let closing = false;

  const open = (kind: SlowKind): Promise<void> =>
    new Promise((connected) => {
      const { head, trickle } = start(kind, options!);
      const started = performance.now();
      let firstByteAt: number | undefined;
      let received = '';
      let sent = 0;
      let timer: NodeJS.Timeout | undefined;
      const socket = connect(options!.port, '127.0.0.1', () => {
        if (head) {
          socket.write(head);
          sent += head.length;
          firstByteAt = performance.now();
        }
        const next = () => {
          timer = setTimeout(
            () => {
              if (socket.destroyed || !socket.writable) return;
              socket.write(trickle());
              sent += 1;
              firstByteAt ??= performance.now();
              next();
            },
            250 + Math.random() * 500,
          );
        };
        next();
        connected();
      });
      sockets.add(socket);
      socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
      socket.on('error', () => {});
      socket.on('close', () => {
        clearTimeout(timer);
        sockets.delete(socket);
        const answers = received.match(/HTTP\/1\.1 \d{3}[^\r\n]*/g) ?? [];
        const code = /"code":"([A-Z_]+)"/.exec(received.slice(received.lastIndexOf('HTTP/1.1')))?.[1];
        outcomes.push({
          kind,
          answers,
          ...(code ? { code } : {}),
          openMs: performance.now() - started,
          requestMs: firstByteAt === undefined ? 0 : performance.now() - firstByteAt,
          sent,
          closedByServer: !closing,
        });
        if (!closing) void open(kind);
      });
    });

  process.on('message', (message: { open?: SlowOptions; close?: true }) => {
    if (message.open) {
      options = message.open;
      closing = false;
      outcomes.length = 0;
      const { count, spreadMs } = options;
      const opening = Array.from(
        { length: count },
        (_, i) =>
          new Promise<void>((resolve) =>
            setTimeout(() => void open(SLOW_KINDS[i % SLOW_KINDS.length]!).then(resolve), (i * spreadMs) / count),
          ),
      );
      void Promise.all(opening).then(() => process.send!({ opened: sockets.size } satisfies SlowMessage));
    } else if (message.close) {
      closing = true;
      for (const socket of sockets) socket.destroy();
      // 'close' events are emitted on the next ticks.
      setTimeout(() => process.send!({ closed: [...outcomes] } satisfies SlowMessage), 50);
    }
  });
  process.on('disconnect', () => process.exit(0));
  // A message sent before the handler above exists is lost: the test waits for this one before sending any.
  process.send!({ ready: true } satisfies SlowMessage);
}

if (process.send) run();
