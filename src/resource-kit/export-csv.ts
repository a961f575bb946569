import { stringify } from 'csv-stringify/sync';
import { sql, type RawBuilder } from 'kysely';
import type { ListDefinition } from '../lists/types.js';
import { isMetadataField, unwrapField, type FieldSchema } from './field-schema.js';
import { FORMULA_STARTS, neutralizeFormula } from './csv-formulas.js';

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
  /**
   * Each field of the record (without extras) as SQL giving its API text: a CSV export without includes is then
   * written by the database, a line per record, instead of record by record in Node (docs/api.md#export-jobs).
   */
  csvSql?: Record<string, CsvColumnSql>;
}

/** How the database writes one field's API text into a CSV cell (see `csvColumn`). */
export interface CsvColumnSql {
  kind: 'text' | 'uuid' | 'integer' | 'timestamp' | 'boolean' | 'metadata';
  /** The column (or expression) of the list's `from`, e.g. `o.notes`. */
  column: string;
}

/** The field kinds a database-written CSV knows: text, uuid, integer, timestamp, boolean, metadata. */
export const csvColumn = {
  text: (column: string): CsvColumnSql => ({ kind: 'text', column }),
  uuid: (column: string): CsvColumnSql => ({ kind: 'uuid', column }),
  integer: (column: string): CsvColumnSql => ({ kind: 'integer', column }),
  timestamp: (column: string): CsvColumnSql => ({ kind: 'timestamp', column }),
  boolean: (column: string): CsvColumnSql => ({ kind: 'boolean', column }),
  metadata: (column: string): CsvColumnSql => ({ kind: 'metadata', column }),
};

/** `neutralizeFormula` in SQL: a quote before a text that, its leading quotes aside, begins like a formula. */
function neutralizedSql(value: RawBuilder<unknown>): RawBuilder<unknown> {
  const starts = sql.join(FORMULA_STARTS.map((start) => sql.lit(start)));
  return sql`(case when left(ltrim(${value}, ''''), 1) in (${starts}) then '''' || ${value} else ${value} end)`;
}

/**
 * A text value as csv-stringify writes it (the flattener's writer): quoted, with quotes doubled, when it holds a
 * quote, a comma or a line break; empty when null.
 */
function quotedCell(value: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`(case when ${value} ~ '[",\r\n]' then '"' || replace(${value}, '"', '""') || '"' else coalesce(${value}, '') end)`;
}

/** A field's cell as the API serializes it: timestamps in ISO 8601 UTC with milliseconds (as Date#toISOString). */
function cellSql(field: CsvColumnSql): RawBuilder<string> {
  const column = sql.raw(field.column);
  switch (field.kind) {
    case 'text':
      return quotedCell(neutralizedSql(sql`(${column})::text`));
    case 'metadata':
      throw new Error('metadata is written one column per key');
    case 'uuid': // never quoted: hex digits and hyphens
    case 'integer':
      return sql<string>`coalesce((${column})::text, '')`;
    case 'timestamp':
      return sql<string>`coalesce(to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), '')`;
    case 'boolean':
      return sql<string>`(case when ${column} then 'true' when not ${column} then 'false' else '' end)`;
  }
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
/** The field without its null branch (a nullable field is written as its value, null as an empty cell). */
const unwrap = (schema: FieldSchema) => unwrapField(schema).field;

function shapeOf(schema: FieldSchema, path: string[], lines?: string): Shape {
  const field = unwrap(schema);
  if (field.enum || field.const !== undefined) return { kind: 'scalar', path };
  if (typeof field.type === 'string' && SCALAR_TYPES.has(field.type)) return { kind: 'scalar', path };
  if (isMetadataField(field)) return { kind: 'metadata', path };
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
  if (typeof value === 'string') return neutralizeFormula(value);
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

  constructor(
    private readonly source: ExportSource,
    includes: readonly string[],
  ) {
    const unrequested = new Set(Object.keys(source.list.includes).filter((name) => !includes.includes(name)));
    this.fields = fieldsOf(source.record as FieldSchema, [], unrequested, source.csvLines);
    this.lines = this.fields.find((shape): shape is Shape & { kind: 'lines' } => shape.kind === 'lines');
  }

  /**
   * The columns of the export's metadata fields (by dotted path) when all of them are the record's own, so one
   * query per field collects their keys over the selection; undefined when an extra carries metadata (the records
   * are then walked).
   */
  metadataColumns(): Map<string, string> | undefined {
    const columns = new Map<string, string>();
    let walk = false;
    const visit = (shapes: readonly Shape[], own: boolean) => {
      for (const shape of shapes) {
        if (shape.kind === 'metadata') {
          const field = own && shape.path.length === 1 ? this.source.csvSql?.[shape.path[0]!] : undefined;
          if (field?.kind === 'metadata') columns.set(dotted(shape.path), field.column);
          else walk = true;
        } else if (shape.kind === 'object' || shape.kind === 'lines') visit(shape.fields, false);
      }
    };
    visit(this.fields, true);
    return walk ? undefined : columns;
  }

  /**
   * One CSV line per record written by the database, cell for cell what `body` writes, when every column is a field
   * the source declares in `csvSql` (so no extras); undefined otherwise.
   */
  sqlLine(keys: MetadataKeys): RawBuilder<string> | undefined {
    const cells: RawBuilder<string>[] = [];
    for (const shape of this.fields) {
      const field = shape.path.length === 1 ? this.source.csvSql?.[shape.path[0]!] : undefined;
      if (!field) return undefined;
      if (shape.kind === 'metadata' && field.kind === 'metadata') {
        const column = sql.raw(field.column);
        for (const key of [...(keys[dotted(shape.path)] ?? [])].sort())
          cells.push(
            quotedCell(
              sql`(case when jsonb_typeof(${column} -> ${key}) = 'string' then ${neutralizedSql(sql`(${column} ->> ${key})`)} else ${column} ->> ${key} end)`,
            ),
          );
      } else if (shape.kind === 'scalar' && field.kind !== 'metadata') {
        cells.push(cellSql(field));
      } else {
        return undefined;
      }
    }
    return sql<string>`concat_ws(',', ${sql.join(cells)})`;
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

  /**
   * The CSV lines of these records, one per record or one per item of the nested list when it is requested, in
   * pieces of at most `perPiece` lines (small strings, see the export's linePieces).
   */
  body(records: readonly unknown[], keys: MetadataKeys, perPiece = 200): string[] {
    const parentColumns = this.columns(this.fields, [], keys);
    const pieces: string[] = [];
    let rows: string[][] = [];
    for (const record of records) {
      const items = this.lines ? valueAt(record, this.lines.path) : undefined;
      const perItem = Array.isArray(items) && items.length > 0 ? items : [undefined];
      for (const item of perItem) rows.push(parentColumns.map((column) => column.read(record, item)));
      if (rows.length >= perPiece) {
        pieces.push(stringify(rows));
        rows = [];
      }
    }
    if (rows.length) pieces.push(stringify(rows));
    return pieces;
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
                return Array.isArray(values) ? neutralizeFormula(values.join('|')) : '';
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
