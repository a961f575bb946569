// Shared parts of the webhook benches: a scratch PostgreSQL database, a loopback HTTPS receiver answering 200 at
// once, and Patron child processes (`dispatch`, `serve`) that trust the receiver's self-signed certificate.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { generate } from 'selfsigned';

export const ROOT = new URL('../..', import.meta.url).pathname;
export const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const SECRET_KEY = 'bench-secret-key-bench-secret-key-0123456789';
export const log = (line: string) => process.stderr.write(line + '\n');

const children = new Set<ChildProcess>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of children) child.kill('SIGKILL');
    process.exit(130);
  });
}
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A fresh database patron_bench_<random>; drop() removes it. */
export async function scratchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `patron_bench_${randomBytes(5).toString('hex')}`;
  await admin(`create database ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

export interface Receiver {
  origin: string;
  caFile: string;
  /** webhook-id → arrival time (performance.now() of this process). */
  arrivals: Map<string, number>;
  count: number;
  duplicates: number;
  close(): Promise<void>;
}

/** The receiver: reads the body, notes the arrival by webhook-id, answers 200 at once. */
export async function startReceiver(): Promise<Receiver> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7, ip: '127.0.0.1' },
          { type: 2, value: 'localhost' },
        ],
      },
    ],
  });
  const caFile = join(tmpdir(), `patron-bench-ca-${process.pid}.pem`);
  writeFileSync(caFile, pems.cert);
  const receiver: Receiver = {
    origin: '',
    caFile,
    arrivals: new Map(),
    count: 0,
    duplicates: 0,
    close: async () => {},
  };
  const server = createServer({ key: pems.private, cert: pems.cert }, (request, response) => {
    request.on('data', () => {});
    request.on('end', () => {
      const id = request.headers['webhook-id'] as string;
      if (receiver.arrivals.has(id + request.url)) receiver.duplicates++;
      receiver.arrivals.set(id + request.url, performance.now());
      receiver.count++;
      response.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** `patron <args>` from the sources (tsx) or, with BENCH_USE_DIST=1, from dist (run `npm run build` first). */
export function patron(args: string[], env: Record<string, string>): ChildProcess {
  // BENCH_NODE_ARGS: extra node flags for the child, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const entry = process.env.BENCH_USE_DIST === '1' ? ['dist/src/cli/main.js'] : ['--import', 'tsx', 'src/cli/main.ts'];
  const command = [...nodeArgs, ...entry, ...args];
  const child = spawn(process.execPath, command, {
    cwd: ROOT,
    env: { ...process.env, PATRON_SECRET_KEY: SECRET_KEY, WEBHOOK_ALLOW_PRIVATE_HOSTS: '1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** user + system CPU ms of a process, from /proc (null where /proc is unavailable). */
export function cpuMs(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

/** Summed CPU ms of the PostgreSQL backends serving the database of `url` (their process title names it). */
export function postgresCpuMs(url: string): number | null {
  const database = new URL(url).pathname.slice(1);
  try {
    let total = 0;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let title: string;
      try {
        title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      } catch {
        continue;
      }
      if (title.startsWith('postgres:') && title.includes(` ${database} `)) total += cpuMs(Number(entry)) ?? 0;
    }
    return total;
  } catch {
    return null;
  }
}
