/** SQLSTATE 23503: a foreign key refused the write (a referenced row is gone, or a referencing row remains). */
export const isForeignKeyViolation = (error: unknown) => (error as { code?: unknown } | null)?.code === '23503';

/** The constraint a unique or foreign-key violation names, when the driver reports it. */
export const constraintOf = (error: unknown): string | undefined => {
  const constraint = (error as { constraint?: unknown } | null)?.constraint;
  return typeof constraint === 'string' ? constraint : undefined;
};
