import Type, { type TObject, type TProperties, type TOptional, type TSchema } from 'typebox';
import { validationError } from '../../core/errors.js';

type OptionalAll<T extends TProperties> = { [K in keyof T]: T[K] extends TOptional<TSchema> ? T[K] : TOptional<T[K]> };

export function optionalAll<T extends TProperties>(properties: T): OptionalAll<T> {
  return Object.fromEntries(
    Object.entries(properties).map(([key, schema]) => [key, Type.Optional(schema)]),
  ) as OptionalAll<T>;
}

/**
 * A body of optional fields sent inside `data` (service.md's form) or at the top level (the other form,
 * docs/api.md#wrapped-and-unwrapped-bodies); the service unwraps it with unwrapData (src/resource-kit/body.ts) and
 * checks what a create requires.
 */
export function dataBody<T extends TProperties>(
  properties: T,
  description = 'Send the fields inside data, or at the top level, not both.',
) {
  const optional = optionalAll(properties);
  return Type.Object(
    { data: Type.Optional(Type.Object(optional, { additionalProperties: false })), ...optional },
    { additionalProperties: false, description },
  ) as TObject<OptionalAll<T> & { data: TOptional<TObject<OptionalAll<T>>> }>;
}

export { requireFields } from '../../resource-kit/body.js';

/** 400 for a PATCH that changes nothing: almost always a client mistake (a field name misspelt inside data). */
export function requireSomeField(fields: object, path: string): void {
  if (Object.keys(fields).length === 0) {
    throw validationError(`Invalid request: ${path} names no field to change.`, [
      { path, message: 'must name at least one field' },
    ]);
  }
}
