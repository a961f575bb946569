import type { TSchema } from 'typebox';
import { compileSerializer } from '../core/serialization.js';

const compiled = new WeakMap<TSchema, (value: unknown) => string>();

/**
 * Serializes a record exactly as the API's response serializer does for the same schema (both compile it with
 * compileSerializer), so a webhook payload and an API response never differ.
 */
export function serializeRecord(schema: TSchema, record: unknown): string {
  let stringify = compiled.get(schema);
  if (!stringify) {
    stringify = compileSerializer(schema);
    compiled.set(schema, stringify);
  }
  return stringify(record);
}
