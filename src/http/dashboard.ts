import { existsSync, readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import send from '@fastify/send';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../core/errors.js';
import type { PatronApp } from '../core/types.js';

/**
 * The dashboard (docs/dashboard.md): the single-page app built into dashboard/dist by `npm run build`, served by this
 * process at /dashboard. Its scripts and styles come from this origin only and it calls /v1 on this origin only, so
 * the Content Security Policy allows nothing else; no inline script is needed (styles may be set at run time by the
 * component library, which cannot run code).
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

/** Hashed file names (Vite writes every bundle under assets/ with its content hash): cached for a year, never revalidated. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html names the current hashed files, so it is revalidated on every load. */
const REVALIDATE = 'no-cache';
/** A path whose last segment has an extension asks for a file: a missing one is 404, never the app's page. */
const LOOKS_LIKE_A_FILE = /\.[A-Za-z0-9]+$/;

/** The page answered while dashboard/dist has no index.html (a checkout that was never built). */
const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Patron dashboard not built</title>
  </head>
  <body>
    <main>
      <h1>The dashboard is not built</h1>
      <p>This server serves the dashboard from <code>dashboard/dist</code>, which does not exist yet.</p>
      <p>Run <code>npm run build</code> (or <code>npm start</code>, which builds first), then reload this page.</p>
      <p>The API itself is served as usual: see <a href="/docs">/docs</a>.</p>
    </main>
  </body>
</html>
`;

/**
 * dashboard/dist of this checkout, found by walking up from this file to Patron's package.json, so it is the same
 * from the sources (src/http, run with tsx) and from the build (dist/src/http).
 */
export function defaultDashboardDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (manifest.name === 'patron') return join(dir, 'dashboard', 'dist');
    } catch {
      // no readable package.json here: look further up
    }
    const parent = dirname(dir);
    if (parent === dir) return join(process.cwd(), 'dashboard', 'dist');
    dir = parent;
  }
}

/** Serves `root` (a built dashboard) at /dashboard, with every /dashboard/* path that is not a file answering index.html. */
export async function registerDashboard(app: PatronApp, root: string): Promise<void> {
  await app.register(async (dashboard) => {
    dashboard.addHook('onSend', async (_request, reply, payload) => {
      reply.header('content-security-policy', DASHBOARD_CSP);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'no-referrer');
      return payload;
    });
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      // Checked on every request: a server started before `npm run build` serves the dashboard once it is built.
      if (!existsSync(join(root, 'index.html'))) {
        return reply
          .code(503)
          .type('text/html; charset=utf-8')
          .header('cache-control', 'no-store')
          .header('retry-after', '60')
          .send(NOT_BUILT_PAGE);
      }
      const path = (request.params as { '*'?: string })['*'] ?? '';
      if (path !== '' && path !== 'index.html') {
        if (await sendFile(request, reply, root, path)) return reply;
        if (LOOKS_LIKE_A_FILE.test(path)) throw notFound('The file');
      }
      await sendFile(request, reply, root, 'index.html');
      return reply;
    };
    dashboard.get('/dashboard', { schema: { hide: true } }, handler);
    dashboard.get('/dashboard/*', { schema: { hide: true } }, handler);
  });
}

/**
 * Sends root/path (path as it came in the URL, still percent-encoded; @fastify/send decodes it and refuses `..` and
 * dotfiles), gzipped when the build wrote a .gz beside it and the client takes gzip. Resolves to whether there was such
 * a file, so the caller can fall back to the app's page. Never to the reply itself: a Fastify reply is a thenable that
 * settles when the response has been written, so an async function returning it resolves to undefined once the file
 * is out, which read as "no such file" and threw a 404 after the 200 (logged at error level as "Promise errored, but
 * reply.sent = true was set").
 */
async function sendFile(request: FastifyRequest, reply: FastifyReply, root: string, path: string): Promise<boolean> {
  const cacheControl = path.startsWith('assets/') ? IMMUTABLE : REVALIDATE;
  const options = { root, index: false, dotfiles: 'ignore', cacheControl: false } as const;
  const acceptsGzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
  let result = await send(request.raw, `/${path}`, options);
  if (result.type !== 'file') {
    result.stream.destroy();
    return false;
  }
  // RFC 9239 names JavaScript text/javascript; the mime table still says application/javascript.
  const type = result.metadata.path.endsWith('.js')
    ? 'text/javascript'
    : (send.mime.getType(result.metadata.path) ?? 'application/octet-stream');
  if (acceptsGzip && (await isFile(`${result.metadata.path}.gz`))) {
    result.stream.destroy();
    const gzipped = await send(request.raw, `/${path}.gz`, { ...options, acceptRanges: false });
    if (gzipped.type === 'file') {
      result = gzipped;
      reply.header('content-encoding', 'gzip');
    } else {
      gzipped.stream.destroy();
      result = await send(request.raw, `/${path}`, options);
    }
  }
  reply.header('vary', 'accept-encoding');
  void reply
    .code(result.statusCode)
    .headers(result.headers)
    .header('content-type', send.isUtf8MimeType(type) ? `${type}; charset=utf-8` : type)
    .header('cache-control', cacheControl)
    .send(result.stream);
  return true;
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (stats) => stats.isFile(),
    () => false,
  );
}
