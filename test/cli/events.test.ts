/**
 * `patron events tail` against a running server (`patron serve` on a fresh embedded database with its demo world): it
 * prints an event made after it started, once, as one line or as the envelope itself, stops on Ctrl-C with exit 0,
 * and refuses a key of another organization.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveOnHostname, type ServedOnHostname } from '../browser/support.js';
import { postgresUrl } from '../support/database.js';
import { BUILT_CLI, childEnv, ROOT } from '../support/processes.js';
import { until } from '../support/webhooks.js';

let server: ServedOnHostname;
let organizationId: string;

interface Tail {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exit: Promise<number | null>;
}

function patron(args: string[]): Tail {
  const child = spawn(process.execPath, [BUILT_CLI, ...args], {
    cwd: ROOT,
    env: childEnv({ PATRON_URL: server.origin, PATRON_KEY: server.key }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exit };
}

const api = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${server.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, text: await response.text() };
};

// The command talks HTTP only: the engine behind the server does not matter, so it runs once per CI run.
describe.skipIf(Boolean(postgresUrl))('patron events tail', () => {
  beforeAll(async () => {
    server = await serveOnHostname();
    organizationId = JSON.parse((await api('GET', '/v1/organization')).text).id;
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('prints an event made after it started, once, as a line of type, id, object id and time; Ctrl-C ends it', async () => {
    const tail = patron(['events', 'tail', '--org', organizationId, '--interval', '100']);
    await until(async () => tail.stderr().includes('Ctrl-C to stop'), 60_000);
    // Nothing that was there before the start is printed.
    expect(tail.stdout()).toBe('');
    const created = await api('POST', '/v1/sites', { name: 'Tailed', domain: 'tailed.example.com' });
    expect(created.status, created.text).toBe(201);
    const site = JSON.parse(created.text) as { id: string };
    const line = await until(
      async () =>
        tail
          .stdout()
          .split('\n')
          .find((each) => each.includes(site.id)),
      30_000,
    );
    const [type, id, objectId, time] = line.trim().split(/\s+/);
    expect(type).toBe('site.created');
    expect(objectId).toBe(site.id);
    const event = JSON.parse((await api('GET', `/v1/events/${id}`)).text);
    expect(event).toMatchObject({ event: 'site.created', timestamp: time, data: { id: site.id } });
    // A second event follows the first, and the first is not printed again.
    await api('PATCH', `/v1/sites/${site.id}`, { name: 'Tailed again' });
    await until(async () => tail.stdout().includes('site.updated'), 30_000);
    tail.child.kill('SIGINT');
    expect(await tail.exit).toBe(0);
    const lines = tail.stdout().trimEnd().split('\n');
    expect(lines.map((each) => each.split(/\s+/)[0])).toEqual(['site.created', 'site.updated']);
  });

  it('--json prints each envelope exactly as GET /v1/events/{id} (and a delivery) has it', async () => {
    const tail = patron(['events', 'tail', '--org', organizationId, '--json', '--interval', '100']);
    await until(async () => tail.stderr().includes('Ctrl-C to stop'), 60_000);
    const created = await api('POST', '/v1/sites', { name: 'Json', domain: 'json.example.com' });
    const site = JSON.parse(created.text) as { id: string };
    const line = await until(
      async () =>
        tail
          .stdout()
          .split('\n')
          .find((each) => each.includes(site.id)),
      30_000,
    );
    const { id } = JSON.parse(line) as { id: string };
    expect(line).toBe((await api('GET', `/v1/events/${id}`)).text);
    tail.child.kill('SIGINT');
    expect(await tail.exit).toBe(0);
  });

  it('refuses a key of another organization, naming both', async () => {
    const other = '0190b4d1-0000-7000-8000-000000000000';
    const tail = patron(['events', 'tail', '--org', other]);
    expect(await tail.exit).toBe(1);
    expect(tail.stderr()).toContain(`not ${other}`);
    expect(tail.stderr()).toContain(organizationId);
  });

  it('--help says what it prints and what it needs', async () => {
    const help = patron(['events', 'tail', '--help']);
    expect(await help.exit).toBe(0);
    for (const words of ['--org <id>', '--json', 'PATRON_URL', 'PATRON_KEY', 'events:read', 'Ctrl-C'])
      expect(help.stdout()).toContain(words);
  });
});
