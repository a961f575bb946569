/**
 * `patron export` against a running server (`patron serve` on a fresh embedded database with its demo world): the
 * export job's progress as plain lines when stderr is not a terminal, the file written, and failures that exit
 * non-zero with the API's message.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveOnHostname, type ServedOnHostname } from '../browser/support.js';
import { postgresUrl } from '../support/database.js';
import { BUILT_CLI, childEnv, ROOT } from '../support/processes.js';

let server: ServedOnHostname;
let dir: string;

// The command talks HTTP only: the engine behind the server does not matter, so it runs once per CI run.
describe.skipIf(Boolean(postgresUrl))('patron export', () => {
  beforeAll(async () => {
    [server, dir] = await Promise.all([serveOnHostname(), mkdtemp(join(tmpdir(), 'patron-export-'))]);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  function patron(args: string[], env: Record<string, string | undefined> = {}) {
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [BUILT_CLI, ...args], {
        cwd: ROOT,
        env: childEnv({ PATRON_URL: server.origin, PATRON_KEY: server.key, ...env }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.once('exit', (code) => resolve({ code, stdout, stderr }));
    });
  }
  const api = async (path: string): Promise<{ data: unknown[]; nextCursor?: string | null }> =>
    (await fetch(`${server.origin}${path}`, { headers: { authorization: `Bearer ${server.key}` } })).json() as Promise<{
      data: unknown[];
      nextCursor?: string | null;
    }>;

  it('writes a JSON Lines file holding exactly the list’s records, with progress lines on stderr', async () => {
    const file = join(dir, 'products.jsonl');
    const run = await patron(['export', '--resource', 'products', '--format', 'jsonl', '-o', file]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    const listed = (await api('/v1/products?limit=100')).data as unknown[];
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual(listed);
    // Not a terminal: plain lines, no bar redraws.
    expect(run.stderr).toMatch(/^Export job [0-9a-f-]{36}: products as jsonl$/m);
    expect(run.stderr).toMatch(
      new RegExp(`^Exported ${listed.length} rows to ${file} \\(\\d[\\d,]* bytes\\)\\.$`, 'm'),
    );
    expect(run.stderr).not.toContain('\r');
  });

  it('writes a CSV of the filtered orders, one line per item, to stdout with -o -', async () => {
    const run = await patron([
      'export',
      '--resource',
      'orders',
      '--include',
      'items',
      '--filter',
      '{"totalCents":{"$gt":0}}',
      '-o',
      '-',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const rows = parse(run.stdout, { columns: true }) as Record<string, string>[];
    // Every order of the list (the demo world has a few hundred, with its history), page by page.
    const orders: { id: string; items: unknown[] }[] = [];
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page = await api(`/v1/orders?include=items&limit=250${cursor ? `&cursor=${cursor}` : ''}`);
      orders.push(...(page.data as { id: string; items: unknown[] }[]));
      cursor = page.nextCursor ?? null;
    }
    expect(rows).toHaveLength(orders.reduce((sum, order) => sum + Math.max(order.items.length, 1), 0));
    expect(new Set(rows.map((row) => row.id))).toEqual(new Set(orders.map((order) => order.id)));
    expect(Object.keys(rows[0]!)).toContain('items.quantity');
  });

  it('exits 1 with the API’s message for a filter the list refuses, and without a key', async () => {
    const refused = await patron(['export', '--resource', 'orders', '--filter', '{"nope":1}']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^400 VALIDATION_ERROR: Invalid filter: body\.filter\.nope is not a filterable field/m,
    );
    const notJson = await patron(['export', '--resource', 'orders', '--filter', '{nope']);
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toContain('--filter is not JSON');
    const keyless = await patron(['export', '--resource', 'orders'], { PATRON_KEY: undefined });
    expect(keyless.code).toBe(1);
    expect(keyless.stderr).toContain('No key: pass --key or set PATRON_KEY');
    const unknown = await patron(['export', '--resource', 'orders', '--format', 'xml']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain("option '--format <format>' argument 'xml' is invalid");
  });
});
