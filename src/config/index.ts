import Type, { type Static } from 'typebox';
import Schema from 'typebox/schema';

const Flag = Type.Union([Type.Literal('0'), Type.Literal('1'), Type.Literal('true'), Type.Literal('false')]);

const EnvSchema = Type.Object({
  PORT: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$' })),
  HOST: Type.Optional(Type.String({ minLength: 1 })),
  PATRON_DATA_DIR: Type.Optional(Type.String({ minLength: 1 })),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  LOG_LEVEL: Type.Optional(
    Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level))),
  ),
  PATRON_SECRET_KEY: Type.Optional(Type.String({ minLength: 32 })),
  WEBHOOK_ALLOW_PRIVATE_HOSTS: Type.Optional(Flag),
  ALLOW_HTTP_WEBHOOKS: Type.Optional(Flag),
  WEBHOOK_TIMEOUT_MS: Type.Optional(Type.String({ pattern: '^[0-9]{1,7}$' })),
  REQUEST_TIMEOUT_MS: Type.Optional(Type.String({ pattern: '^[0-9]{4,7}$' })),
  MAX_CONNECTIONS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,6}$' })),
  TRUST_PROXY: Type.Optional(Type.String({ pattern: '^[0-9A-Za-z.:/]+(\\s*,\\s*[0-9A-Za-z.:/]+)*$', maxLength: 1000 })),
  // Checked by retention() below, whose messages never repeat the value.
  RETENTION_DELIVERIES_DAYS: Type.Optional(Type.String()),
  RETENTION_EVENTS_DAYS: Type.Optional(Type.String()),
  RETENTION_JOBS_DAYS: Type.Optional(Type.String()),
  RETENTION_MAIL_DAYS: Type.Optional(Type.String()),
  RETENTION_AUDIT_DAYS: Type.Optional(Type.String()),
  RETENTION_BATCH_ROWS: Type.Optional(Type.String()),
  EXPORT_MAX_ROWS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,7}$' })),
  REVIEW_SUMMARY_GENERATOR: Type.Optional(Type.Union([Type.Literal('builtin'), Type.Literal('openai')])),
  REVIEW_SUMMARY_OPENAI_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
  REVIEW_SUMMARY_OPENAI_KEY: Type.Optional(Type.String({ minLength: 1 })),
  REVIEW_SUMMARY_OPENAI_MODEL: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  REVIEW_SUMMARY_OPENAI_TIMEOUT_MS: Type.Optional(Type.String({ pattern: '^[0-9]{1,7}$' })),
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://[^\\s]+$' })),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s/?#]+/?$', maxLength: 300 })),
  AUDIT_LOG: Type.Optional(Type.Union([Type.Literal('on'), Type.Literal('off')])),
  MAIL_FROM: Type.Optional(Type.String({ pattern: '^[^\\r\\n]*[^@\\s<>]+@[^@\\s<>]+>?\\s*$', maxLength: 320 })),
});

/** Which generator writes review summaries: the built-in extractive one, or an OpenAI-compatible chat API. */
export type ReviewSummaryGeneratorConfig =
  { kind: 'builtin' } | { kind: 'openai'; url: string; apiKey: string | undefined; model: string; timeoutMs: number };

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  logLevel: string;
  /** Undefined until resolved: see secrets.ts, which may generate one into the data dir. */
  secretKey: string | undefined;
  webhookAllowPrivateHosts: boolean;
  allowHttpWebhooks: boolean;
  webhookTimeoutMs: number;
  /** How long a client has to send a whole request, headers and body (docs/api.md#slow-clients). */
  requestTimeoutMs: number;
  /** Open connections one process accepts at most; further ones are closed at once. */
  maxConnections: number;
  /**
   * The proxies whose X-Forwarded-* headers are believed (addresses, CIDR ranges or `loopback`), comma-separated;
   * none by default (docs/api.md#dashboard-sessions).
   */
  trustProxy: string | undefined;
  reviewSummaryGenerator: ReviewSummaryGeneratorConfig;
  /** How long the bounded tables keep their rows (docs/api.md#retention). */
  retention: RetentionConfig;
  /** The most rows one export job writes; a larger selection fails the job (docs/api.md#export-jobs). */
  exportMaxRows: number;
  /** Records per page of an export's walk, and so per chunk of its file (not an environment variable; tests lower it). */
  exportPageRows: number;
  /** Records per page when the database writes the lines (a CSV without extras): cheap to read, so larger. */
  exportLinePageRows: number;
  /** Rows one batch of an import job writes in one transaction (tests make it small). */
  importBatchRows: number;
  /** The SMTP server mail goes out through (docs/api.md#mail); without it mail is recorded `logged`, not sent. */
  smtpUrl: string | undefined;
  /** The From header of every mail, e.g. `Shop <no-reply@example.com>`; required with SMTP_URL. */
  mailFrom: string | undefined;
  /** Whether write requests and sign-ins are recorded in the audit log (docs/api.md#audit-log); on by default. */
  auditLog: boolean;
  /**
   * The origin people reach Patron at (`https://patron.example.com`): links in mail are built on it, never on a
   * request's Host header, which a caller chooses (docs/api.md#forgotten-passwords).
   */
  publicUrl: string | undefined;
  /** Where the built dashboard is (not an environment variable; tests point it elsewhere): dashboard/dist by default. */
  dashboardDir?: string;
}

/** The retention windows in days, and the rows one pruning statement deletes at most (docs/api.md#retention). */
export interface RetentionConfig {
  deliveriesDays: number;
  eventsDays: number;
  jobsDays: number;
  /** Days a mail (its log entry and its body) is kept once settled (docs/api.md#retention-windows). */
  mailDays: number;
  /** Days an audit log entry is kept; whole months are dropped once all their entries are older (docs/api.md#audit-log). */
  auditDays: number;
  batchRows: number;
}

export class ConfigError extends Error {}

const isOn = (flag: string | undefined) => flag === '1' || flag === 'true';

/**
 * A message about a bad value names the variable and never prints the value: it would land in terminals, CI logs and
 * process supervisors' logs, and a URL or key carries credentials (those say so, so nobody goes looking for it).
 */
const CREDENTIAL_BEARING = /(_URL|_KEY)$/;

/** The variables holding a URL, each parsed at start. */
const URL_VARIABLES = ['DATABASE_URL', 'REDIS_URL', 'REVIEW_SUMMARY_OPENAI_URL', 'SMTP_URL', 'PUBLIC_URL'] as const;

const shown = (name: string) => (CREDENTIAL_BEARING.test(name) ? `${name} (value not shown)` : name);

/** Reads and validates the environment; a bad value throws one line naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const known = Object.fromEntries(
    Object.keys(EnvSchema.properties)
      .filter((name) => env[name] !== undefined && env[name] !== '')
      .map((name) => [name, env[name]]),
  );
  // typebox/schema checks as typebox/value does, without loading the value system (conversion, cloning…): every
  // command reads the configuration first (docs/api.md#embedded-database-and-cli).
  const firstError = Schema.Errors(EnvSchema, known)[1][0];
  if (firstError) {
    const name = firstError.instancePath.replace(/^\//, '') || 'environment';
    throw new ConfigError(`Invalid ${shown(name)}: ${describe(name)}`);
  }
  // A URL the schema's pattern lets through may still not parse (a port past 65535, an unclosed `[`); the driver
  // would then stop the start with a bare "Invalid URL" naming nothing, so every URL is parsed here first.
  for (const name of URL_VARIABLES) {
    const value = known[name];
    if (value !== undefined && !URL.canParse(value))
      throw new ConfigError(`Invalid ${shown(name)}: not a valid URL; ${describe(name)}`);
  }
  const values = known as Static<typeof EnvSchema>;
  const port = Number(values.PORT ?? 3000);
  if (port < 1 || port > 65535) throw new ConfigError(`Invalid PORT: ${describe('PORT')}`);
  const webhookTimeoutMs = Number(values.WEBHOOK_TIMEOUT_MS ?? 10000);
  if (webhookTimeoutMs < 1) throw new ConfigError(`Invalid WEBHOOK_TIMEOUT_MS: ${describe('WEBHOOK_TIMEOUT_MS')}`);
  if (values.SMTP_URL && !values.MAIL_FROM)
    throw new ConfigError(`Missing MAIL_FROM: SMTP_URL needs ${describe('MAIL_FROM')}`);
  return {
    reviewSummaryGenerator: reviewSummaryGenerator(values),
    port,
    host: values.HOST ?? '127.0.0.1',
    dataDir: values.PATRON_DATA_DIR ?? './.patron',
    databaseUrl: values.DATABASE_URL,
    redisUrl: values.REDIS_URL,
    logLevel: values.LOG_LEVEL ?? 'info',
    secretKey: values.PATRON_SECRET_KEY,
    webhookAllowPrivateHosts: isOn(values.WEBHOOK_ALLOW_PRIVATE_HOSTS),
    allowHttpWebhooks: isOn(values.ALLOW_HTTP_WEBHOOKS),
    webhookTimeoutMs,
    requestTimeoutMs: Number(values.REQUEST_TIMEOUT_MS ?? 30_000),
    maxConnections: Number(values.MAX_CONNECTIONS ?? 1000),
    trustProxy: values.TRUST_PROXY,
    retention: retention(values),
    exportMaxRows: Number(values.EXPORT_MAX_ROWS ?? 100_000),
    exportPageRows: 1000,
    exportLinePageRows: 5000,
    importBatchRows: 1000,
    smtpUrl: values.SMTP_URL,
    mailFrom: values.MAIL_FROM,
    auditLog: values.AUDIT_LOG !== 'off',
    publicUrl: values.PUBLIC_URL ? new URL(values.PUBLIC_URL).origin : undefined,
  };
}

const RETENTION_LIMITS = {
  RETENTION_DELIVERIES_DAYS: { fallback: 30, min: 1, max: 3650 },
  RETENTION_EVENTS_DAYS: { fallback: 30, min: 1, max: 3650 },
  RETENTION_JOBS_DAYS: { fallback: 30, min: 1, max: 3650 },
  RETENTION_MAIL_DAYS: { fallback: 30, min: 1, max: 3650 },
  RETENTION_AUDIT_DAYS: { fallback: 365, min: 1, max: 3650 },
  RETENTION_BATCH_ROWS: { fallback: 2000, min: 100, max: 10000 },
} as const;

function retention(values: Static<typeof EnvSchema>): RetentionConfig {
  const read = (name: keyof typeof RETENTION_LIMITS) => {
    const { fallback, min, max } = RETENTION_LIMITS[name];
    const raw = values[name];
    if (raw === undefined) return fallback;
    const number = /^[0-9]{1,6}$/.test(raw) ? Number(raw) : NaN;
    if (!(number >= min && number <= max)) throw new ConfigError(`Invalid ${name}: ${describe(name)}`);
    return number;
  };
  return {
    deliveriesDays: read('RETENTION_DELIVERIES_DAYS'),
    eventsDays: read('RETENTION_EVENTS_DAYS'),
    jobsDays: read('RETENTION_JOBS_DAYS'),
    mailDays: read('RETENTION_MAIL_DAYS'),
    auditDays: read('RETENTION_AUDIT_DAYS'),
    batchRows: read('RETENTION_BATCH_ROWS'),
  };
}

function reviewSummaryGenerator(values: Static<typeof EnvSchema>): ReviewSummaryGeneratorConfig {
  if ((values.REVIEW_SUMMARY_GENERATOR ?? 'builtin') === 'builtin') return { kind: 'builtin' };
  for (const name of ['REVIEW_SUMMARY_OPENAI_URL', 'REVIEW_SUMMARY_OPENAI_MODEL'] as const) {
    if (!values[name])
      throw new ConfigError(`Missing ${name}: REVIEW_SUMMARY_GENERATOR=openai needs ${describe(name)}`);
  }
  const timeoutMs = Number(values.REVIEW_SUMMARY_OPENAI_TIMEOUT_MS ?? 30_000);
  if (timeoutMs < 1)
    throw new ConfigError(`Invalid REVIEW_SUMMARY_OPENAI_TIMEOUT_MS: ${describe('REVIEW_SUMMARY_OPENAI_TIMEOUT_MS')}`);
  return {
    kind: 'openai',
    url: values.REVIEW_SUMMARY_OPENAI_URL!.replace(/\/+$/, ''),
    apiKey: values.REVIEW_SUMMARY_OPENAI_KEY,
    model: values.REVIEW_SUMMARY_OPENAI_MODEL!,
    timeoutMs,
  };
}

function describe(name: string): string {
  switch (name) {
    case 'PORT':
      return 'expected a TCP port number from 1 to 65535.';
    case 'DATABASE_URL':
      return 'expected a postgres:// or postgresql:// connection string.';
    case 'REDIS_URL':
      return 'expected a redis:// or rediss:// URL.';
    case 'LOG_LEVEL':
      return 'expected one of fatal, error, warn, info, debug, trace, silent.';
    case 'PATRON_SECRET_KEY':
      return 'expected at least 32 characters (e.g. `openssl rand -base64 32`).';
    case 'WEBHOOK_TIMEOUT_MS':
      return 'expected a positive number of milliseconds.';
    case 'REQUEST_TIMEOUT_MS':
      return 'expected a number of milliseconds from 1000 to 9999999 (default 30000).';
    case 'TRUST_PROXY':
      return 'expected comma-separated proxy addresses or CIDR ranges, e.g. 10.0.0.0/8,loopback.';
    case 'MAX_CONNECTIONS':
      return 'expected a positive whole number (default 1000).';
    case 'RETENTION_DELIVERIES_DAYS':
      return 'expected a whole number of days from 1 to 3650 (default 30).';
    case 'RETENTION_EVENTS_DAYS':
      return 'expected a whole number of days from 1 to 3650 (default 7).';
    case 'RETENTION_JOBS_DAYS':
    case 'RETENTION_MAIL_DAYS':
      return 'expected a whole number of days from 1 to 3650 (default 30).';
    case 'RETENTION_AUDIT_DAYS':
      return 'expected a whole number of days from 1 to 3650 (default 365).';
    case 'AUDIT_LOG':
      return 'expected on (the default) or off.';
    case 'RETENTION_BATCH_ROWS':
      return 'expected a whole number of rows from 100 to 10000 (default 2000).';
    case 'EXPORT_MAX_ROWS':
      return 'expected a whole number of rows from 1 to 99999999 (default 100000).';
    case 'REVIEW_SUMMARY_GENERATOR':
      return 'expected builtin (the default, no network) or openai (an OpenAI-compatible chat completions API).';
    case 'REVIEW_SUMMARY_OPENAI_URL':
      return 'the base URL of an OpenAI-compatible API, e.g. https://api.openai.com/v1 (POST {url}/chat/completions).';
    case 'REVIEW_SUMMARY_OPENAI_MODEL':
      return 'the model name the API is asked for, e.g. gpt-4o-mini.';
    case 'REVIEW_SUMMARY_OPENAI_KEY':
      return 'the API key sent as a Bearer token (leave unset for servers that need none).';
    case 'REVIEW_SUMMARY_OPENAI_TIMEOUT_MS':
      return 'expected a positive number of milliseconds.';
    case 'SMTP_URL':
      return 'expected an smtp:// or smtps:// URL, e.g. smtps://user:password@smtp.example.com:465.';
    case 'PUBLIC_URL':
      return 'the origin Patron is reached at, e.g. https://patron.example.com (links in mail are built on it).';
    case 'MAIL_FROM':
      return 'the From address of every mail, e.g. "Shop <no-reply@example.com>".';
    case 'WEBHOOK_ALLOW_PRIVATE_HOSTS':
    case 'ALLOW_HTTP_WEBHOOKS':
      return 'expected 1, 0, true or false.';
    default:
      return 'expected a non-empty value.';
  }
}
