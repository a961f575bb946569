import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type * as Undici from 'undici';
import { checkWebhookUrlSyntax, isForbiddenAddress, type WebhookUrlPolicy } from '../../events/webhook-url.js';

export interface SendOutcome {
  status: 'succeeded' | 'failed';
  /** The receiver's HTTP status, when it answered. */
  responseStatus: number | null;
  /** Why it failed, in words; null on success. Never contains the secret or the signature. */
  error: string | null;
  durationMs: number;
}

export interface SenderOptions {
  timeoutMs: number;
  policy: WebhookUrlPolicy;
  /** Test only: certificates to trust instead of the system's (production uses NODE_EXTRA_CA_CERTS). */
  ca?: string | string[] | undefined;
}

const FORBIDDEN = 'EPATRONFORBIDDEN';
/** The receiver's answer body is not kept; reading a little lets the connection be reused. */
const RESPONSE_BODY_LIMIT = 64 * 1024;

const unbracket = (host: string) => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);

/**
 * DNS resolution with the SSRF check in it: undici connects to exactly the address checked here, so a name that
 * resolves to a public address at creation and to an internal one later is still refused (no rebinding window).
 */
function guardedLookup(policy: WebhookUrlPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const forbidden = policy.allowPrivateHosts
        ? undefined
        : addresses.find((entry) => isForbiddenAddress(entry.address));
      if (forbidden) {
        // The delivery log names the host, never the internal address it resolved to (docs/security.md).
        const refused = Object.assign(new Error(`forbidden address (${hostname} is not a public host)`), {
          code: FORBIDDEN,
        });
        return callback(refused, '', 0);
      }
      if (options.all)
        return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** One short phrase per way a delivery can fail; stored as the delivery's error. */
function describeFailure(error: unknown, timeoutMs: number, aborted: AbortSignal | undefined): string {
  if (aborted?.aborted) return 'interrupted';
  const failure = error as { name?: string; code?: string; message?: string; cause?: unknown };
  if (failure.code === FORBIDDEN) return failure.message ?? 'forbidden address';
  if (failure.cause && (failure.cause as { code?: string }).code === FORBIDDEN) return (failure.cause as Error).message;
  if (
    failure.name === 'TimeoutError' ||
    failure.code === 'UND_ERR_CONNECT_TIMEOUT' ||
    failure.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    failure.code === 'UND_ERR_BODY_TIMEOUT'
  ) {
    return `timed out after ${timeoutMs} ms`;
  }
  switch (failure.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset by the receiver';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
  }
  if (
    failure.code?.startsWith('ERR_TLS') ||
    /certificate|ssl|tls/i.test(failure.message ?? '') ||
    failure.code?.includes('CERT')
  ) {
    return `TLS error: ${failure.message ?? failure.code}`;
  }
  return `network error: ${failure.code ?? failure.message ?? 'unknown'}`;
}

/**
 * POSTs webhook bodies: keep-alive connections per origin, the SSRF guard inside connect, one time-out covering
 * connect, TLS, headers and body (WEBHOOK_TIMEOUT_MS). Redirects are not followed: a 3xx is a failed delivery.
 */
export class WebhookSender {
  /**
   * undici and its connection pool, made with the first POST: a process that never sends a webhook never holds the
   * module (docs/api.md#running-the-server).
   */
  private client: Promise<{ agent: Undici.Agent; request: typeof Undici.request }> | undefined;

  private closed = false;

  constructor(private readonly options: SenderOptions) {}

  private connect() {
    const options = this.options;
    // After close a POST fails as it did on a closed pool, and opens no new one.
    if (this.closed && !this.client) return Promise.reject(new Error('the webhook sender is closed'));
    return (this.client ??= import('undici').then((undici) => {
      const agent = new undici.Agent({
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 60_000,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        connect: {
          lookup: guardedLookup(options.policy),
          timeout: options.timeoutMs,
          ...(options.ca ? { ca: options.ca } : {}),
        },
      });
      return { agent, request: undici.request };
    }));
  }

  /** Never throws: every failure becomes a failed outcome with its reason. `stop` aborts it as "interrupted". */
  async send(url: string, body: Buffer, headers: Record<string, string>, stop?: AbortSignal): Promise<SendOutcome> {
    const started = performance.now();
    const done = (status: SendOutcome['status'], responseStatus: number | null, error: string | null): SendOutcome => ({
      status,
      responseStatus,
      error,
      durationMs: performance.now() - started,
    });
    const refused = this.refusal(url);
    if (refused) return done('failed', null, refused);
    // One controller per POST, aborted by the time-out or by `stop` (cheaper than AbortSignal.timeout + any).
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.options.timeoutMs);
    const onStop = () => controller.abort();
    stop?.addEventListener('abort', onStop, { once: true });
    try {
      const { agent, request } = await this.connect();
      const response = await request(url, {
        dispatcher: agent,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'Patron-Webhooks/1', ...headers },
        body,
        signal: controller.signal,
      });
      await response.body.dump({ limit: RESPONSE_BODY_LIMIT }).catch(() => {});
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      return done(
        ok ? 'succeeded' : 'failed',
        response.statusCode,
        ok ? null : `receiver answered HTTP ${response.statusCode}`,
      );
    } catch (error) {
      if (timedOut && !stop?.aborted) return done('failed', null, `timed out after ${this.options.timeoutMs} ms`);
      return done('failed', null, describeFailure(error, this.options.timeoutMs, stop));
    } finally {
      clearTimeout(timer);
      stop?.removeEventListener('abort', onStop);
    }
  }

  /** URL → refusal (or null): the checks below depend on the URL and the fixed policy only, so one per URL is enough. */
  private readonly refusals = new Map<string, string | null>();

  private refusal(url: string): string | null {
    let refused = this.refusals.get(url);
    if (refused === undefined) {
      if (this.refusals.size >= 10_000) this.refusals.clear();
      refused = this.checkUrl(url);
      this.refusals.set(url, refused);
    }
    return refused;
  }

  /** Checks made before any connection: the URL's form under today's policy, and IP literals (which skip DNS). */
  private checkUrl(url: string): string | null {
    const reason = checkWebhookUrlSyntax(url, this.options.policy);
    if (reason) return `url refused: ${reason}`;
    const host = unbracket(new URL(url).hostname);
    if (isIP(host) && !this.options.policy.allowPrivateHosts && isForbiddenAddress(host))
      return `forbidden address (${host})`;
    return null;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.client) await (await this.client).agent.close();
  }
}
