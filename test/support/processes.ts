/**
 * What every suite that runs Patron as a real child process needs: the CLI entry point (built, or from the sources),
 * an environment holding only the configuration the test gives, the exit of a child, a free port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The CLI's sources, run as `node --import tsx <CLI> <args>` with cwd ROOT: only to prove they run unbuilt. */
export const CLI = 'src/cli/main.ts';
/**
 * The CLI as users run it: `node <BUILT_CLI> <args>` with cwd ROOT, in a fraction of the time tsx takes to load the
 * sources. test/support/global-setup.ts builds it once per run when src/ is newer than the build.
 */
export const BUILT_CLI = 'dist/src/cli/main.js';

/** Configuration the parent's environment must not leak into a child (every child gets its own). */
const CONFIG_VARIABLES = [
  'PORT',
  'HOST',
  'PATRON_DATA_DIR',
  'DATABASE_URL',
  'REDIS_URL',
  'LOG_LEVEL',
  'PATRON_SECRET_KEY',
  'WEBHOOK_ALLOW_PRIVATE_HOSTS',
  'ALLOW_HTTP_WEBHOOKS',
  'WEBHOOK_TIMEOUT_MS',
  'NODE_EXTRA_CA_CERTS',
  'PATRON_URL',
  'PATRON_KEY',
];

/** This process's environment without Patron's configuration, plus exactly `extra` (undefined values left out). */
export function childEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONFIG_VARIABLES) delete env[name];
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) env[name] = value;
  return env;
}

/** What a finished CLI command printed, and its exit code. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI (`patron <args>`) to its end with `env` over the test's own configuration. A command that hangs
 * is ended by the process's own `timeout` (SIGKILL after 60 s), not a timer of the test, and shows as exit code null.
 */
export function runBuiltCli(env: Record<string, string | undefined>, ...args: string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUILT_CLI, ...args], {
      cwd: ROOT,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** How the child ended: at once if it already has, else when it does. */
export function exitOf(child: ChildProcess): Promise<Exit> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A TCP port free on 127.0.0.1 at the time of asking. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
