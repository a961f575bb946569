const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * SQLSTATEs that say the database cannot serve right now, whatever the query: the server is out of connections,
 * memory or disk, shutting down or starting, refuses connections to this database, or no longer accepts the
 * credentials. None of them is the request's fault, so each answers 503 with Retry-After
 * (docs/api.md#outages-and-concurrent-writes).
 */
function isUnavailableSqlState(code: string, message: unknown): boolean {
  // Class 08: connection exception. Class 53: insufficient resources (53300 too many connections, 53100 disk
  // full, 53200 out of memory). Class 28: the credentials are refused (a rotated password, a revoked login).
  if (code.startsWith('08') || code.startsWith('53') || code.startsWith('28')) return true;
  // 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now, 57P04 database dropped,
  // 57P05 idle session timeout (57014, a cancelled statement, is not an outage).
  if (/^57P0[1-5]$/.test(code)) return true;
  // 3D000: the database does not exist (dropped, or not yet restored).
  if (code === '3D000') return true;
  // 55000 is mostly a query fault (e.g. currval before nextval); only its connection form is an outage, as when
  // `ALTER DATABASE … ALLOW_CONNECTIONS false` is in force.
  return code === '55000' && typeof message === 'string' && /not currently accepting connections/i.test(message);
}

/**
 * True when an error means the database cannot serve right now (unreachable, lost, out of connections or
 * resources, shutting down or starting up, refusing this database or these credentials), as opposed to a fault in
 * the query itself. The one place that decides what answers 503.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (UNAVAILABLE_NODE_CODES.has(code)) return true;
    if (isUnavailableSqlState(code, message)) return true;
  }
  // Checked before the message: a failed connect to every address of a host name is an AggregateError whose own
  // message may be empty.
  if (error instanceof AggregateError && error.errors.some(isDatabaseUnavailable)) return true;
  return (
    typeof message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
      message,
    )
  );
}

/**
 * SQLSTATE 40P01 (deadlock detected) / 40001 (serialization failure): PostgreSQL rolled the transaction back because
 * of concurrent ones; running it again is the remedy (src/db/retry.ts does, a few times).
 */
export const isTransientConflict = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
};

/**
 * SQLSTATE 0A000 with this message: the statement's table gained or lost a column since this connection prepared
 * it (a migration ran while the process served, as in a rolling deploy), and PostgreSQL refuses to run a prepared
 * `select *` whose result columns changed. The remedy is to prepare it again (src/db/prepared.ts, docs/api.md#upgrades-while-serving).
 */
export const isStalePreparedStatement = (error: unknown) => {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === '0A000' && typeof message === 'string' && message.includes('cached plan must not change result type');
};

/**
 * SQLSTATE 23503: a foreign key refused the write. Services check references before writing, so only a concurrent
 * change gets here: the referenced record was deleted while the request worked, or a record was deleted that rows
 * written meanwhile now refer to.
 */
export const isForeignKeyViolation = (error: unknown) => (error as { code?: unknown } | null)?.code === '23503';

/** SQLSTATE 23505: a unique index refused the write. */
export const isUniqueViolation = (error: unknown) => (error as { code?: unknown } | null)?.code === '23505';

/** SQLSTATE 22021 / 22P05: text (or jsonb) carrying a NUL character, which PostgreSQL cannot store. */
export const isNulCharacter = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '22021' || code === '22P05';
};

/**
 * SQLSTATE 22008 / 22007: a date-time the database cannot hold or read (year 0, month 13 in a text the list engine
 * passed through, an interval that runs past the year 294276). Only a caller's value can be one.
 */
export const isDateTimeOutOfRange = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '22008' || code === '22007';
};

/** The constraint a unique or foreign-key violation names, when the driver reports it. */
export const constraintOf = (error: unknown): string | undefined => {
  const constraint = (error as { constraint?: unknown } | null)?.constraint;
  return typeof constraint === 'string' ? constraint : undefined;
};
