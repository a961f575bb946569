import { stringify } from 'csv-stringify/sync';
import type { ListDefinition } from '../lists/types.js';

/**
 * What an export job needs of one list resource (docs/api.md#export-jobs): its list, the record schema its list
 * endpoint answers with and the row→record mapper it uses (so a file holds exactly the list's records), the
 * permission of that list, and the one nested list a CSV line is written per item of.
 */
export interface ExportSource {
  list: ListDefinition;
  /** The record's response schema (TypeBox), with its extras as optional properties. */
  record: object;
  toRecord: (row: never) => object;
  /** The list endpoint's permission: creating and reading an export of it needs the same. */
  permission: string;
  /** The record's array of objects flattened one CSV line per item, when its include is requested. */
  csvLines?: string;
}

/** The JSON schema of a record field, as far as the flattener reads it. */
interface FieldSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: FieldSchema[];
  properties?: Record<string, FieldSchema>;
  patternProperties?: Record<string, FieldSchema>;
  additionalProperties?: boolean | FieldSchema;
  items?: FieldSchema;
}

/**
 * How a field becomes CSV cells (docs/api.md#export-jobs): a scalar is one cell; metadata one `<path>.<key>` cell per
 * key; an array of strings (tag names) one `|`-joined cell; an object of fixed fields its fields' cells under
 * `<path>.`; anything else (free-form objects, a reward's discriminated object, arrays of objects other than the
 * nested list) one cell of JSON text; the nested list its items' cells under `<path>.`, one line per item.
 */
type Shape =
  | { kind: 'scalar'; path: string[] }
  | { kind: 'metadata'; path: string[] }
  | { kind: 'strings'; path: string[] }
  | { kind: 'json'; path: string[] }
  | { kind: 'object'; path: string[]; fields: Shape[] }
  | { kind: 'lines'; path: string[]; fields: Shape[] };

const SCALAR_TYPES = new Set(['string', 'integer', 'number', 'boolean', 'null']);

/** A nullable field is its non-null variant; a union of string constants (an enum) is a scalar. */
function unwrap(schema: FieldSchema): FieldSchema {
  if (!schema.anyOf) return schema;
  const variants = schema.anyOf.filter((variant) => variant.type !== 'null');
  if (variants.length === 1) return unwrap(variants[0]!);
  if (variants.every((variant) => variant.const !== undefined || SCALAR_TYPES.has(String(variant.type))))
    return { type: 'string' };
  return schema;
}

function shapeOf(schema: FieldSchema, path: string[], lines?: string): Shape {
  const field = unwrap(schema);
  if (field.enum || field.const !== undefined) return { kind: 'scalar', path };
  if (typeof field.type === 'string' && SCALAR_TYPES.has(field.type)) return { kind: 'scalar', path };
  if (field.type === 'object' && field.patternProperties && !field.properties) {
    const values = Object.values(field.patternProperties);
    if (values.every((value) => value.type === 'string')) return { kind: 'metadata', path };
  }
  if (field.type === 'object' && field.properties && field.additionalProperties === false) {
    return { kind: 'object', path, fields: fieldsOf(field, path) };
  }
  if (field.type === 'array' && field.items) {
    const item = unwrap(field.items);
    if (item.type === 'string') return { kind: 'strings', path };
    if (lines !== undefined && path.length === 1 && path[0] === lines && item.type === 'object' && item.properties)
      return { kind: 'lines', path, fields: fieldsOf(item, []) };
  }
  return { kind: 'json', path };
}

function fieldsOf(schema: FieldSchema, path: string[], skip: ReadonlySet<string> = new Set(), lines?: string) {
  return Object.entries(schema.properties ?? {})
    .filter(([name]) => !skip.has(name))
    .map(([name, field]) => shapeOf(field, [...path, name], lines));
}

/** The metadata keys seen per metadata field (by its dotted path): a CSV has one column per key seen. */
export type MetadataKeys = Record<string, string[]>;

const dotted = (path: readonly string[]) => path.join('.');

function valueAt(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const name of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[name];
  }
  return current;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * Flattens one list's records into CSV (docs/api.md#export-jobs), driven by the record schema: the columns are the
 * record's fields (the extras of the export's `include` only), with `metadata.<key>` columns for the keys seen.
 * Metadata keys are collected first (`collect`, over every record of the export), so the header, written before
 * the first line, names every column a line can fill.
 */
export class CsvFlattener {
  private readonly fields: Shape[];
  private readonly lines: (Shape & { kind: 'lines' }) | undefined;

  constructor(source: ExportSource, includes: readonly string[]) {
    const unrequested = new Set(Object.keys(source.list.includes).filter((name) => !includes.includes(name)));
    this.fields = fieldsOf(source.record as FieldSchema, [], unrequested, source.csvLines);
    this.lines = this.fields.find((shape): shape is Shape & { kind: 'lines' } => shape.kind === 'lines');
  }

  /** Adds the metadata keys of these records (as the API serialized them) to `keys`. */
  collect(records: readonly unknown[], keys: Map<string, Set<string>>): void {
    const visit = (shapes: readonly Shape[], value: unknown, prefix: readonly string[]) => {
      for (const shape of shapes) {
        const at = valueAt(value, shape.path);
        if (shape.kind === 'metadata' && at && typeof at === 'object') {
          const name = dotted([...prefix, ...shape.path]);
          const seen = keys.get(name) ?? new Set<string>();
          for (const key of Object.keys(at)) seen.add(key);
          keys.set(name, seen);
        } else if (shape.kind === 'object') {
          visit(shape.fields, value, prefix);
        } else if (shape.kind === 'lines' && Array.isArray(at)) {
          for (const item of at) visit(shape.fields, item, [...prefix, ...shape.path]);
        }
      }
    };
    for (const record of records) visit(this.fields, record, []);
  }

  /** The header row for the metadata keys collected. */
  header(keys: MetadataKeys): string {
    return stringify([this.columns(this.fields, [], keys).map((column) => column.name)]);
  }

  /** The CSV lines of these records: one per record, or one per item of the nested list when it is requested. */
  body(records: readonly unknown[], keys: MetadataKeys): string {
    const parentColumns = this.columns(this.fields, [], keys);
    const rows: string[][] = [];
    for (const record of records) {
      const items = this.lines ? valueAt(record, this.lines.path) : undefined;
      const perItem = Array.isArray(items) && items.length > 0 ? items : [undefined];
      for (const item of perItem) rows.push(parentColumns.map((column) => column.read(record, item)));
    }
    return rows.length ? stringify(rows) : '';
  }

  private columns(
    shapes: readonly Shape[],
    prefix: readonly string[],
    keys: MetadataKeys,
    inItem = false,
  ): { name: string; read: (record: unknown, item: unknown) => string }[] {
    return shapes.flatMap((shape) => {
      const name = dotted([...prefix, ...shape.path]);
      const from = (record: unknown, item: unknown) => valueAt(inItem ? item : record, shape.path);
      switch (shape.kind) {
        case 'scalar':
        case 'json':
          return [{ name, read: (record: unknown, item: unknown) => cell(from(record, item)) }];
        case 'strings':
          return [
            {
              name,
              read: (record: unknown, item: unknown) => {
                const values = from(record, item);
                return Array.isArray(values) ? values.join('|') : '';
              },
            },
          ];
        case 'metadata':
          return [...(keys[name] ?? [])].sort().map((key) => ({
            name: `${name}.${key}`,
            read: (record: unknown, item: unknown) => cell((from(record, item) as Record<string, unknown>)?.[key]),
          }));
        case 'object':
          return this.columns(shape.fields, prefix, keys, inItem);
        case 'lines':
          return this.columns(shape.fields, shape.path, keys, true);
      }
    });
  }
}
