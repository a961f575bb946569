/**
 * A record field's JSON schema as far as the CSV reader of import jobs and the CSV writer of export jobs look at it
 * (docs/api.md#csv): both are driven by the record schemas, so they read the same shapes the same way.
 */
export interface FieldSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: FieldSchema[];
  properties?: Record<string, FieldSchema>;
  patternProperties?: Record<string, FieldSchema>;
  additionalProperties?: boolean | FieldSchema;
  items?: FieldSchema;
}

const SCALAR_TYPES = new Set(['string', 'integer', 'number', 'boolean']);

/**
 * The field without its null branch, and whether it had one; a union of scalar constants or scalar types (an enum)
 * reads as a string.
 */
export function unwrapField(schema: FieldSchema): { field: FieldSchema; nullable: boolean } {
  if (!schema.anyOf) return { field: schema, nullable: false };
  const variants = schema.anyOf.filter((variant) => variant.type !== 'null');
  const nullable = variants.length < schema.anyOf.length;
  if (variants.length === 1) return { field: unwrapField(variants[0]!).field, nullable };
  if (variants.every((variant) => variant.const !== undefined || SCALAR_TYPES.has(String(variant.type))))
    return { field: { type: 'string' }, nullable };
  return { field: schema, nullable };
}

/** Metadata: an object of string values under keys it does not name. */
export const isMetadataField = (field: FieldSchema): boolean =>
  field.type === 'object' &&
  !field.properties &&
  field.patternProperties !== undefined &&
  Object.values(field.patternProperties).every((value) => value.type === 'string');
