/**
 * Patron as real child processes for the fault and scale-out suites: `serve` and `dispatch` started from the
 * sources (as test/cli/serve.test.ts does), killed by signal, and a small HTTP client for their API.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { BUILT_CLI, childEnv, exitOf, freePort, ROOT, type Exit } from '../support/processes.js';
import { answers200, untilReady } from '../support/ready.js';

const READY_WITHIN_MS = 60_000;

export interface PatronProcess {
  child: ChildProcess;
  pid: number;
  /** stdout and stderr so far (pino writes its JSON lines to stdout). */
  output(): string;
  exited(): Promise<Exit>;
  /** Sends the signal and waits for the exit (SIGKILL after 15 s). */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

export interface ServeProcess extends PatronProcess {
  baseUrl: string;
}

const children = new Set<ChildProcess>();

/** Runs `patron <args>` with exactly the given configuration. */
export function spawnPatron(args: string[], env: Record<string, string | undefined>): PatronProcess {
  const child = spawn(process.execPath, [BUILT_CLI, ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return {
    child,
    pid: child.pid!,
    output: () => output,
    exited: () => exitOf(child),
    stop: async (signal = 'SIGTERM') => {
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const exit = await exitOf(child);
      clearTimeout(timer);
      return exit;
    },
  };
}

/** `patron serve [flags]` on a free port; resolves once GET /readyz answers 200. */
export async function startServe(env: Record<string, string | undefined>, flags: string[] = []): Promise<ServeProcess> {
  const port = await freePort();
  const process_ = spawnPatron(['serve', ...flags], { ...env, PORT: String(port), HOST: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${port}`;
  // The CLI reports a failed start as "patron: <message>" (the process may linger on open handles).
  const failedToStart = () => /^patron: /m.test(process_.output());
  try {
    await untilReady(process_.child, async () => failedToStart() || (await answers200(`${baseUrl}/readyz`)), {
      timeoutMs: READY_WITHIN_MS,
      output: process_.output,
    });
    if (failedToStart()) throw new Error(`serve did not start\n${process_.output()}`);
  } catch (error) {
    process_.child.kill('SIGKILL');
    throw error;
  }
  return { ...process_, baseUrl };
}

/** SIGKILLs every child still running (afterAll). */
export async function killAll(): Promise<void> {
  await Promise.all(
    [...children].map((child) => {
      child.kill('SIGKILL');
      return exitOf(child);
    }),
  );
}

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  ms: number;
}

/** One API call with a key; a body is sent as JSON. Rejects on a network error or after `timeoutMs`. */
export async function call<T = any>(
  baseUrl: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 30_000,
): Promise<Answer<T>> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: kept as text for the failure message
  }
  return { status: response.status, headers: response.headers, body: parsed as T, ms: performance.now() - started };
}
