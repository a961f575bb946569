import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PatronApp } from '../core/types.js';

/**
 * The rendering of /openapi.json at /docs (docs/api.md#the-api-reference): Scalar's standalone bundle, served from
 * node_modules so the page works offline, loaded by a page with no inline script, so the Content Security Policy can
 * allow scripts from this origin only. Every URL is relative to the origin the page was loaded from, whatever the
 * host or scheme, and nothing is upgraded to https: a page reached over plain http on a LAN name loads all it needs.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // Scalar's components set style elements and attributes at run time; styles cannot run code.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  // "Test Request" and the document itself: this origin only (never a proxy or CDN).
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
  "object-src 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Patron API reference</title>
    <link rel="icon" href="data:," />
  </head>
  <body>
    <div id="app"></div>
    <noscript>The API reference needs JavaScript. The OpenAPI document is at <a href="/openapi.json">/openapi.json</a>.</noscript>
    <script src="/docs/scalar.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

/**
 * Configures the reference. A sign-in link (/docs#key=sk_…, which the first start prints) fills the bearer key in and
 * is then taken out of the address bar; the fragment never reaches the server, so the key is in no log.
 */
const INIT = `(function () {
  var match = /^#key=(sk_(?:test_)?[0-9A-Za-z]+)$/.exec(window.location.hash);
  if (match) window.history.replaceState(null, '', window.location.pathname + window.location.search);
  window.Scalar.createApiReference('#app', {
    url: '/openapi.json',
    // The document names a templated server for tools elsewhere; here, "Test Request" calls the origin the page was
    // opened on, whatever the host and scheme.
    servers: [{ url: window.location.origin + '/v1', description: 'This server' }],
    // Scalar's default fonts come from its CDN; the system's fonts need no network.
    withDefaultFonts: false,
    showDeveloperTools: 'never',
    // Scalar's "Ask AI" agent answers from Scalar's cloud, which the page may not reach (connect-src 'self'): its
    // button would do nothing, so it is not shown (docs/api.md#the-api-reference).
    agent: { disabled: true },
    telemetry: false,
    documentDownloadType: 'json',
    defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
    authentication: {
      preferredSecurityScheme: 'bearerAuth',
      securitySchemes: match ? { bearerAuth: { token: match[1] } } : {},
    },
    metaData: { title: 'Patron API reference' },
  });
})();
`;

/**
 * The bundle's copy of zod probes whether the page may compile code (`new Function("")` in a try) before it speeds up
 * object parsing with generated code. Under `script-src 'self'` the probe is refused, zod parses without generated code
 * as it was built to, and the browser reports a Content Security Policy violation on every load. The bundle is served
 * with the probe answered "no" in advance: the same parsing, no refused eval (docs/api.md#the-api-reference). A Scalar
 * release that words the probe differently is caught by the browser suite, which counts violation events.
 */
const EVAL_PROBE = 'try{return new Function(""),!0}catch(e){return!1}';
const EVAL_PROBE_ANSWERED = 'return!1';

async function readBundle(): Promise<Buffer> {
  const source = await readFile(bundlePath(), 'utf8');
  return Buffer.from(source.replace(EVAL_PROBE, EVAL_PROBE_ANSWERED));
}

/** The standalone bundle shipped inside @scalar/fastify-api-reference (its package exports only the plugin). */
function bundlePath(): string {
  const main = createRequire(import.meta.url).resolve('@scalar/fastify-api-reference');
  return join(dirname(main), 'js', 'standalone.js');
}

export async function registerDocs(app: PatronApp): Promise<void> {
  // Read on first use: 3.5 MB that a process serving only the API never needs.
  let bundle: Promise<Buffer> | undefined;
  await app.register(async (docs) => {
    docs.addHook('onSend', async (_request, reply, payload) => {
      reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
      reply.header('x-content-type-options', 'nosniff');
      return payload;
    });
    docs.get('/docs', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(PAGE),
    );
    docs.get('/docs/init.js', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(INIT),
    );
    docs.get('/docs/scalar.js', { schema: { hide: true } }, async (_request, reply) => {
      bundle ??= readBundle().catch((error: unknown) => {
        bundle = undefined;
        throw error;
      });
      return reply
        .type('text/javascript; charset=utf-8')
        .header('cache-control', 'public, max-age=3600')
        .send(await bundle);
    });
  });
}
