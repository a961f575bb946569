import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, {
  type FastifyInstance,
  LogController,
  type FastifyError,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  type RouteOptions,
} from 'fastify';
import cookie from '@fastify/cookie';
import { pino } from 'pino';
import Type from 'typebox';
import { withoutSecretKeys } from '../auth/keys.js';
import { permissionCatalogOf } from '../auth/permissions.js';
import { cascadeRegistry } from '../core/cascades.js';
import type { Config } from '../config/index.js';
import { ApiError } from '../core/errors.js';
import type { Database } from '../db/engine.js';
import type { RateLimiter } from '../ratelimit/types.js';
import {
  authenticate,
  authorize,
  checkOrigin,
  checkSessionWrite,
  requestLabels,
  SESSION_ONLY,
  TEST_MODE_ONLY,
} from './auth.js';
import { registerAuditLog } from './audit.js';
import { registerErrorHandling } from './error-handler.js';
import { registerHealth } from './health.js';
import { registerIdempotency } from './idempotency.js';
import { startPresence } from './process-presence.js';
import { createMetrics, registerMetrics, type Metrics } from './metrics.js';
import { registerDashboard, defaultDashboardDir } from './dashboard.js';
import { registerDocs } from './docs.js';
import { registerOpenApi } from './openapi.js';
import { lazyRequestLogger } from './request-logger.js';
import { chargeRequest } from './rate-limit.js';
import type { DocumentedExamples, EventCatalog, PatronApp, PlatformServices, ResourceModule } from '../core/types.js';
import { eventCatalogOf } from '../events/catalog.js';
import { buildSerializer } from '../core/serialization.js';
import { validatorCompiler } from './validation.js';
import { registerVersions, type VersionLayerOptions } from './versions.js';

export const API_PREFIX = '/v1';
export const BODY_LIMIT_BYTES = 10 * 1024 * 1024;
/**
 * The request line and headers together. A filter document may be 16 KiB (docs/api.md#filter-documents) and every
 * byte of it may be percent-encoded to three in a GET's query string, so 48 KiB of URL must fit, with room for the
 * other headers; Node's default (16 KiB) refused filters well inside the documented limit.
 */
export const MAX_HEADER_BYTES = 64 * 1024;
/** How long a client has to send its request line and headers (at most the whole request's time-out). */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_ID = /^[\w.:-]{1,128}$/;
/**
 * Log lines waiting for stdout past this many bytes are dropped rather than held (a reader that stopped reading must
 * not grow the process without bound): 16 MB is tens of thousands of lines, seconds of a stalled collector.
 */
const LOG_BUFFER_LIMIT_BYTES = 16 * 1024 * 1024;
/**
 * Log lines leave in writes of at least this many bytes, or every LOG_FLUSH_INTERVAL_MS when fewer are waiting. Each
 * asynchronous write is a round trip through libuv's thread pool that wakes the event loop again when it completes;
 * at a moderate load, where requests arrive one at a time, one write per line cost about a fifth of a request's CPU
 * (docs/api.md#request-logs).
 */
const LOG_BATCH_BYTES = 8 * 1024;
const LOG_FLUSH_INTERVAL_MS = 100;
const NO_QUERY_PARAMETERS = Type.Object({}, { additionalProperties: false });

export interface AppOptions {
  config: Config;
  database: Database;
  limiter: RateLimiter;
  /** Wired in by the composition root; the platform never imports a resource. */
  resources: readonly ResourceModule[];
  /** The documented examples (the demo world's, from the composition root); none in a custom test app. */
  examples?: DocumentedExamples;
  /** Every subscribable event (from the composition root); a custom test app gets its modules' catalog. */
  eventCatalog?: EventCatalog;
  logger?: FastifyServerOptions['logger'];
  /**
   * Dated API versions (docs/api.md#api-versions). `false` leaves the version layer out entirely: only the bench
   * (bench/api-versions.ts) does, to measure what the layer costs against the same server without it.
   */
  versions?: false | VersionLayerOptions;
}

export interface BuiltApp {
  app: PatronApp;
  metrics: Metrics;
}

/**
 * One line per request, when it is answered ("request completed"): method, URL (keys cut to their prefix), status,
 * duration, the client's address, and for an authenticated request the organization and the key's id and prefix.
 * The fields are flat strings and numbers, written by hand rather than through the `req`/`res` serializers: pino
 * copies nested objects through a slower path, and the line is written on every request (docs/api.md#request-logs).
 * The labels go on this line rather than being bound to the request's logger: binding them cost CPU on every request
 * even when nothing was logged (docs/journal/2026-11-24-structural-pass-request-logging.md).
 */
class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    if (!error && !this.infoEnabled(reply)) return;
    const line = {
      method: request.method,
      url: withoutSecretKeys(request.url),
      statusCode: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime * 100) / 100,
      remoteAddress: request.ip,
      ...requestLabels(request),
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }

  /** Above info (LOG_LEVEL=warn), the line is not even assembled. */
  private infoEnabled(reply: FastifyReply): boolean {
    const log = reply.log as FastifyReply['log'] & { isLevelEnabled?: (level: string) => boolean };
    return log.isLevelEnabled ? log.isLevelEnabled('info') : true;
  }
}

/**
 * How requests are logged: the URL with every secret key cut to its visible prefix, and no header at all (the
 * Authorization header and Idempotency-Key are also redacted should a line ever carry headers). docs/security.md.
 * Lines go to stdout asynchronously and in batches: a write never blocks the request that logged it, and lines wait
 * at most LOG_FLUSH_INTERVAL_MS to leave together. Whatever is still buffered is written when the process exits; a
 * SIGKILL can lose the last lines (docs/api.md#request-logs).
 */
function loggerOptions(level: string, given: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (given === false) return false;
  const options = {
    level,
    redact: ['req.headers.authorization', 'req.headers["idempotency-key"]', 'req.headers.cookie'],
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: withoutSecretKeys(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
  };
  if (typeof given === 'object') return { ...options, ...given };
  const { stream, streamWrite } = batchedStdout();
  return { ...options, stream, hooks: { streamWrite } };
}

/**
 * stdout for the logger: lines leave once LOG_BATCH_BYTES are waiting, and otherwise within LOG_FLUSH_INTERVAL_MS of
 * being logged. The flush timer runs only while lines come: sonic-boom's own periodic flush ticks forever, and its
 * empty writes cost an idle server about 3.5 ms of CPU a second (docs/journal/2026-11-29-access-log-moderate-load.md).
 * It keeps ticking until two ticks in a row saw no new line, so a flush that came while a write was still under way
 * (and so did nothing) is followed by one that does.
 */
function batchedStdout(): { stream: ReturnType<typeof pino.destination>; streamWrite: (line: string) => string } {
  const stream = pino.destination({
    dest: 1,
    sync: false,
    minLength: LOG_BATCH_BYTES,
    maxLength: LOG_BUFFER_LIMIT_BYTES,
  });
  let closed = false;
  stream.once('close', () => (closed = true));
  let linesSinceTick = 0;
  let quietTicks = 0;
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    if (!closed) stream.flush();
    quietTicks = linesSinceTick === 0 ? quietTicks + 1 : 0;
    linesSinceTick = 0;
    timer = quietTicks >= 2 ? undefined : setTimeout(tick, LOG_FLUSH_INTERVAL_MS).unref();
  };
  const streamWrite = (line: string) => {
    linesSinceTick += 1;
    if (!timer) {
      quietTicks = 0;
      timer = setTimeout(tick, LOG_FLUSH_INTERVAL_MS).unref();
    }
    return line;
  };
  return { stream, streamWrite };
}

export async function buildApp(options: AppOptions): Promise<BuiltApp> {
  const { config, database, limiter, resources } = options;
  const app = Fastify({
    logger: loggerOptions(config.logLevel, options.logger),
    bodyLimit: BODY_LIMIT_BYTES,
    // A client that trickles its headers or body holds a socket only so long (docs/api.md#slow-clients). Node checks
    // the time-outs every connectionsCheckingInterval, so a slow client is cut within a second of its limit.
    requestTimeout: config.requestTimeoutMs,
    http: {
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, config.requestTimeoutMs),
      connectionsCheckingInterval: 1000,
    },
    clientErrorHandler: answerClientError,
    requestIdHeader: false,
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    // Behind a proxy the operator names, its X-Forwarded-* headers say how the client reached the server: the
    // session cookie's Secure flag and the dashboard's origin check read them (docs/api.md#dashboard-sessions).
    ...(config.trustProxy ? { trustProxy: config.trustProxy } : {}),
    // Replaced by closeConnectionsWhenClosing, which answers in the error envelope (docs/api.md#error-envelope).
    return503OnClosing: false,
    logController: new AccessLog(),
    childLoggerFactory: lazyRequestLogger,
    frameworkErrors: answerRoutingError,
    schemaController: { compilersFactory: { buildSerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>() as PatronApp;

  // Past this many open sockets new connections are closed at once, so slow clients cannot exhaust the process.
  app.server.maxConnections = config.maxConnections;
  app.setValidatorCompiler(validatorCompiler);
  registerJsonBodies(app);
  enforceRouteContract(app);
  closeConnectionsWhenClosing(app);

  const metrics = createMetrics(() => database.poolStats());
  registerErrorHandling(app, BODY_LIMIT_BYTES);
  registerMetrics(app, metrics);
  // Cookies are parsed only where a session is looked for (src/http/auth.ts), not on every request.
  await app.register(cookie, { hook: false });
  const permissionCatalog = permissionCatalogOf(resources);
  registerAccessControl(app, { database, limiter, metrics, permissionCatalog });
  const presence = startPresence(database.db, database.engine, app.log);
  // After every request has finished (onClose hooks run once in-flight requests are done).
  app.addHook('onClose', () => presence.close());
  // Before the Idempotency-Key claim: what a route's body check refuses is a validation error, which claims no key.
  registerBodyChecks(app);
  registerIdempotency(app, database.db, presence);
  // After the Idempotency-Key claim: a replayed answer changes nothing, and its entry is written after it.
  registerAuditLog(app, database, config.auditLog);
  registerHealth(app, database);
  if (options.versions !== false) registerVersions(app, options.versions);
  const eventCatalog = options.eventCatalog ?? eventCatalogOf(resources.flatMap((resource) => resource.events ?? []));
  await registerOpenApi(app, resources, eventCatalog, options.examples);
  await registerDocs(app);
  await registerDashboard(app, config.dashboardDir ?? defaultDashboardDir());

  const services: PlatformServices = {
    database,
    db: database.db,
    config,
    permissionCatalog,
    cascades: cascadeRegistry(resources),
    eventCatalog,
  };
  await app.register(
    async (v1) => {
      for (const resource of resources) await resource.routes(v1 as PatronApp, services);
    },
    { prefix: API_PREFIX },
  );
  await app.ready();
  return { app, metrics };
}

/**
 * What the HTTP server refuses before Fastify sees a request: headers over MAX_HEADER_BYTES (431), a request not
 * received within its time-out (408) or a malformed request (400), answered in the error envelope
 * (docs/api.md#error-envelope) on the raw socket, then closed for good. Ending our side is not enough: Node's HTTP
 * server keeps sockets half-open, so a client that went on trickling its body after the 408 held the socket as long
 * as it liked (one was still open 45 s after a 30 s limit). So the socket is destroyed once the answer is written,
 * and at once when it can no longer be written to (docs/api.md#slow-clients). A connection reset needs no answer.
 */
function answerClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const refusal =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new ApiError(
          'REQUEST_HEADERS_TOO_LARGE',
          `The request line and headers exceed ${MAX_HEADER_BYTES / 1024} KiB: send a large filter in a smaller form, or fewer headers.`,
        )
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new ApiError(
            'REQUEST_TIMEOUT',
            'The request did not arrive in time: send its headers and body without pauses.',
          )
        : new ApiError('VALIDATION_ERROR', 'The request is not valid HTTP.');
  const body = JSON.stringify(refusal.toBody());
  const reason = STATUS_CODES[refusal.statusCode] ?? 'Bad Request';
  socket.end(
    [
      `HTTP/1.1 ${refusal.statusCode} ${reason}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
    () => socket.destroy(),
  );
  // A client that reads nothing may never let the answer flush: it gets a second at most.
  setTimeout(() => socket.destroy(), CLOSE_AFTER_ANSWER_MS).unref();
}

const CLOSE_AFTER_ANSWER_MS = 1_000;

/**
 * Errors the router raises before any hook runs: a path that is not valid percent-encoding, or a path parameter longer
 * than the router takes (no identifier is). Fastify's own answers would be a 400 and a 414 outside the error envelope
 * (docs/api.md#error-envelope); both are a malformed path, so both are a 400 VALIDATION_ERROR in the envelope, with the
 * request id.
 */
function answerRoutingError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const refusal = new ApiError(
    'VALIDATION_ERROR',
    tooLong
      ? 'A path parameter is too long to be an identifier.'
      : 'The request URL is malformed (invalid percent-encoding).',
    [
      {
        path: 'path',
        message: tooLong ? 'has a parameter longer than 100 characters' : 'is not valid percent-encoding',
      },
    ],
  );
  void reply.code(refusal.statusCode).header('x-request-id', request.id).send(refusal.toBody());
}

/** Decodes UTF-8 or throws on the first invalid byte; a leading BOM is kept (so JSON.parse refuses it, as before). */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The charset parameter of a Content-Type, lowercased and unquoted; undefined when there is none. */
function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType ?? '');
  return match?.[2]?.toLowerCase();
}

/**
 * Only JSON bodies are accepted (anything else is 415), in UTF-8 (another charset is
 * 415, bytes that are not UTF-8 are 400). An empty body counts as no body, so actions that take
 * none can be called by clients that always send Content-Type: application/json.
 */
function registerJsonBodies(app: PatronApp): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const charset = charsetOf(request.headers['content-type']);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      return done(
        new ApiError(
          'UNSUPPORTED_MEDIA_TYPE',
          `Content-Type charset "${charset}" is not supported: send JSON encoded as UTF-8 (charset=utf-8, or no charset).`,
        ),
      );
    }
    let text: string;
    try {
      text = STRICT_UTF8.decode(body as Buffer);
    } catch {
      // Decoding leniently would store U+FFFD in place of the caller's bytes: refuse instead, and change nothing.
      return done(
        new ApiError('VALIDATION_ERROR', 'The request body is not valid UTF-8: send JSON encoded as UTF-8.', [
          { path: 'body', message: 'is not valid UTF-8' },
        ]),
      );
    }
    if (text.trim() === '') return done(null, undefined);
    parseJson(request, text, (error, value) => {
      if (error) return done(error);
      // Only a \uD800-style escape can put a lone surrogate in a string (decoded bytes cannot): strings are only
      // tested when the text has one.
      const problem = bodyProblem(value, SURROGATE_ESCAPE.test(text), 0);
      if (problem) return done(problem);
      done(null, value);
    });
  });
}

/** Far deeper than any body of the API (a rule's config is the deepest, at 5); code that walks bodies recurses. */
export const MAX_BODY_DEPTH = 64;
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * What a parsed body must not hold. Nesting past MAX_BODY_DEPTH: the body's fingerprint (Idempotency-Key) and
 * serializers recurse, and a body of 20,000 nested objects overflowed the stack (a 500). Half a surrogate pair:
 * JSON can write one, but it is not text; PostgreSQL refuses it in jsonb (a 500) and the driver silently turns it
 * into U+FFFD in text columns.
 */
function bodyProblem(value: unknown, checkStrings: boolean, depth: number): ApiError | null {
  if (typeof value === 'string') return checkStrings && LONE_SURROGATE.test(value) ? loneSurrogate() : null;
  if (value === null || typeof value !== 'object') return null;
  if (depth >= MAX_BODY_DEPTH) {
    return new ApiError('VALIDATION_ERROR', `The request body is nested more than ${MAX_BODY_DEPTH} levels deep.`, [
      { path: 'body', message: `is nested more than ${MAX_BODY_DEPTH} levels deep` },
    ]);
  }
  // Index and for-in loops: this runs on every body, and allocating entries made it as slow as the parse.
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = bodyProblem(value[i], checkStrings, depth + 1);
      if (problem) return problem;
    }
    return null;
  }
  for (const key in value) {
    if (checkStrings && LONE_SURROGATE.test(key)) return loneSurrogate();
    const problem = bodyProblem((value as Record<string, unknown>)[key], checkStrings, depth + 1);
    if (problem) return problem;
  }
  return null;
}

const loneSurrogate = () =>
  new ApiError(
    'VALIDATION_ERROR',
    'Text values must be well-formed Unicode: a \\uD800-\\uDFFF escape must be half of a surrogate pair.',
    [{ path: 'body', message: 'contains a lone surrogate (\\uD800-\\uDFFF)' }],
  );

/**
 * Shutdown waits for in-flight requests, but a keep-alive connection would then sit idle and hold the server
 * open until the client's timeout. Responses sent while closing therefore end their connection, and a request
 * arriving on such a connection after shutdown began is told to go elsewhere.
 */
function closeConnectionsWhenClosing(app: PatronApp): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // One hook for both jobs: every hook costs a few microseconds on every request.
  // Callback style: synchronous work needs no promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (!closing) return done();
    done(
      new ApiError('SERVICE_UNAVAILABLE', 'The server is shutting down; retry on another instance.', undefined, {
        'retry-after': '1',
      }),
    );
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
}

/**
 * The order of checks (docs/api.md#order-of-checks): authenticate → charge → permission, in one hook (validation and
 * the handler follow in Fastify's lifecycle). A dashboard session is never charged: authenticate → origin and CSRF
 * token on writes → permission (docs/api.md#dashboard-sessions). Routes without a declared permission (health,
 * metrics, docs) are public; the public sign-in only checks the Origin of its POST.
 */
function registerAccessControl(
  app: PatronApp,
  {
    database,
    limiter,
    metrics,
    permissionCatalog,
  }: { database: Database; limiter: RateLimiter; metrics: Metrics; permissionCatalog: readonly string[] },
): void {
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config;
    if (config.access === 'public') return checkOrigin(request);
    if (!config.permission) return;
    const auth = await authenticate(database.db, request, permissionCatalog);
    request.auth = auth;
    if (auth.session) {
      checkSessionWrite(request, auth.session);
      authorize(auth, config.permission);
      if (config.testModeOnly && auth.livemode) throw new ApiError('FORBIDDEN', TEST_MODE_ONLY);
      return;
    }
    if (config.access === 'session') throw new ApiError('FORBIDDEN', SESSION_ONLY);
    await chargeRequest({ limiter, metrics }, auth, config, reply);
    authorize(auth, config.permission);
    if (config.testModeOnly && auth.livemode) throw new ApiError('FORBIDDEN', TEST_MODE_ONLY);
  });
}

/**
 * The body checks routes declare (`config.checkBody`) beyond their schema, run after validation and before anything
 * acts: the end of the "validate (400)" step of docs/api.md#order-of-checks. Callback style with a synchronous fast
 * path: most routes declare none.
 */
function registerBodyChecks(app: PatronApp): void {
  app.addHook('preHandler', (request, _reply, done) => {
    const check = request.routeOptions.config.checkBody;
    if (!check) return done();
    try {
      check(request.body);
    } catch (error) {
      return done(error as Error);
    }
    done();
  });
}

/**
 * Every /v1 route must declare its permission and cost next to its schema, and refuses unknown query
 * parameters (docs/api.md#strict-input) even when it takes none.
 */
function enforceRouteContract(app: PatronApp): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.url.startsWith(API_PREFIX)) return;
    const config = route.config ?? {};
    if (config.access === 'public') {
      // Signing in: nobody to authenticate, no bucket to charge (docs/api.md#dashboard-sessions).
      if (config.permission || config.cost !== undefined) {
        throw new Error(`Route ${route.method} ${route.url} is public: it declares neither permission nor cost`);
      }
    } else {
      if (!config.permission) throw new Error(`Route ${route.method} ${route.url} declares no permission`);
      if (config.access === 'session') {
        // Sessions are never charged, so a cost would be a promise the route cannot keep.
        if (config.cost !== undefined) {
          throw new Error(
            `Route ${route.method} ${route.url} answers only sessions, never charged: it declares no cost`,
          );
        }
      } else if (!Number.isInteger(config.cost) || (config.cost ?? 0) < 1) {
        throw new Error(`Route ${route.method} ${route.url} declares no cost`);
      }
    }
    // A body naming required create fields is checked before the Idempotency-Key is claimed, so a body missing one
    // is 400 whatever key it carries (docs/api.md#order-of-checks): the route must say how (checkCreateBody).
    const body = route.schema?.body as { 'x-required'?: unknown } | undefined;
    if (Array.isArray(body?.['x-required']) && !config.checkBody) {
      throw new Error(`Route ${route.method} ${route.url} requires body fields but declares no checkBody`);
    }
    // An import's row limit is the import's own (413, not a validation error), and is checked before the
    // Idempotency-Key is claimed too, with the rest of the body (docs/api.md#import-rows).
    const rowLimit = (body as { properties?: { data?: { 'x-max-items'?: unknown } } } | undefined)?.properties?.data?.[
      'x-max-items'
    ];
    if (typeof rowLimit === 'number') {
      const own = config.checkBody;
      route.config = {
        ...config,
        checkBody: (sent) => {
          const rows = (sent as { data?: unknown } | undefined)?.data;
          if (Array.isArray(rows) && rows.length > rowLimit) {
            throw new ApiError(
              'PAYLOAD_TOO_LARGE',
              `An import takes at most ${rowLimit} rows per request; this one has ${rows.length}. Split it into several requests.`,
            );
          }
          own?.(sent);
        },
      };
    }
    route.schema = { ...route.schema, querystring: route.schema?.querystring ?? NO_QUERY_PARAMETERS };
  });
}
