const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * True when an error means the database cannot be reached right now (connection refused or lost, server
 * shutting down or starting up), as opposed to a fault in the query itself.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (UNAVAILABLE_NODE_CODES.has(code)) return true;
    // SQLSTATE class 08 (connection exception), 57P01..57P03 (admin shutdown, crash shutdown, cannot connect now).
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return true;
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
