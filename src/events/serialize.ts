import fastJson from 'fast-json-stringify';
import type { TSchema } from 'typebox';

const compiled = new WeakMap<TSchema, (value: unknown) => string>();

/**
 * Serializes a record exactly as the API's response serializer does for the same schema (Fastify compiles
 * response schemas with fast-json-stringify too), so a webhook payload and an API response never differ.
 */
export function serializeRecord(schema: TSchema, record: unknown): string {
  let stringify = compiled.get(schema);
  if (!stringify) {
    stringify = fastJson(schema as Parameters<typeof fastJson>[0]) as (value: unknown) => string;
    compiled.set(schema, stringify);
  }
  return stringify(record);
}
