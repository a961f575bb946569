import { validationError, type ErrorDetail } from '../core/errors.js';

/**
 * The two body forms (docs/api.md#wrapped-and-unwrapped-bodies): the fields inside `data` (the reference form) or at
 * the top level (the guide's form).
 * Returns the fields with the path prefix error details use; both forms at once is 400.
 */
export function unwrapData<Fields extends object>(
  body: ({ data?: Fields | undefined } & Partial<Fields>) | undefined,
  noun: string,
): { fields: Fields; path: string } {
  const { data, ...topLevel } = body ?? {};
  const top = Object.keys(topLevel);
  if (data !== undefined && top.length > 0) {
    throw validationError(
      `Invalid request: send the ${noun}'s fields either inside body.data or at the top level, not both (found data and ${top.join(', ')}).`,
      top.map((key) => ({ path: `body.${key}`, message: 'must not be sent together with body.data' })),
    );
  }
  return data !== undefined ? { fields: data, path: 'body.data' } : { fields: topLevel as Fields, path: 'body' };
}

/**
 * A body as a create takes it: the same schema (the fields stay optional for validation, so the service can name
 * every missing field at once), marked with the fields a create requires so the document shows them required
 * (docs/api.md#the-openapi-document). The service checks the same list.
 */
export function requiredOnCreate<T extends object>(schema: T, required: readonly string[]): T {
  return { ...schema, 'x-required': [...required] };
}

/** 400 naming every required field that is missing (creates take the same optional fields as updates). */
export function requireFields(fields: object, names: readonly string[], path: string): void {
  const missing: ErrorDetail[] = names
    .filter((name) => (fields as Record<string, unknown>)[name] === undefined)
    .map((name) => ({ path: `${path}.${name}`, message: 'is required' }));
  if (missing.length) {
    throw validationError(
      `Invalid request: ${missing.map((detail) => detail.path).join(' and ')} ${missing.length > 1 ? 'are' : 'is'} required.`,
      missing,
    );
  }
}

/**
 * A create route's `checkBody`: the body form and the required fields, checked before the Idempotency-Key is claimed
 * (docs/api.md#order-of-checks), with the errors the service would give. The app refuses to start a route whose body
 * names required fields (requiredOnCreate) without one.
 */
export const checkCreateBody =
  (required: readonly string[], noun: string) =>
  (body: unknown): void => {
    const { fields, path } = unwrapData(body as Record<string, unknown> | undefined, noun);
    requireFields(fields, required, path);
  };
