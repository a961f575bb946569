/**
 * How an integer is written in a query string or path (docs/api.md#api-versions): decimal digits with an optional
 * minus sign. Before 2026-12-01 any text JavaScript reads as an integer number passed (`1e2`, `100.0`, ` 100`,
 * `0x10`), and was read as that number.
 */
export const PLAIN_INTEGER = /^-?[0-9]+$/;

/** The names of a query schema's top-level properties that are integers (alone or in a union). */
export function integerProperties(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  if (!properties) return [];
  return Object.keys(properties).filter((name) => isIntegerSchema(properties[name]));
}

function isIntegerSchema(schema: unknown): boolean {
  if (!schema || typeof schema !== 'object') return false;
  const { type, anyOf, oneOf } = schema as { type?: unknown; anyOf?: unknown[]; oneOf?: unknown[] };
  if (type === 'integer' || (Array.isArray(type) && type.includes('integer'))) return true;
  return [...(anyOf ?? []), ...(oneOf ?? [])].some(isIntegerSchema);
}

/**
 * The integer the text was read as before 2026-12-01 (Ajv's coercion: any non-empty text that JavaScript's Number reads
 * as an integer), written plainly; undefined when the text is already plain or was never an integer.
 */
export function formerlyReadInteger(text: string): string | undefined {
  if (PLAIN_INTEGER.test(text) || text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? String(value) : undefined;
}
