import type { ErrorDetail } from '../core/errors.js';
import { compileBodyValidator } from '../http/validation.js';
import type { ImportSource } from './import-source.js';
import { isMetadataField, unwrapField, type FieldSchema } from './field-schema.js';
import { restoreFormula } from './csv-formulas.js';

/**
 * Reading an import job's file into the rows of the resource's synchronous import (docs/api.md#import-jobs), driven
 * by that import's row schema, so every resource reads the same way: CSV columns named after the row's fields,
 * `metadata.<key>` columns, `|`-joined tags, one line per item of the nested list tied to its row by the row's key;
 * JSON Lines one row per line. What the resource's list writes and its import does not take (an export's `id`,
 * `updatedAt`, embedded records) is read past, and record fields that carry a row field (`customerId`) fill it, so
 * an export imports as it is.
 */

/** A problem with the file as a whole (a malformed line, an unknown column): the job fails, naming the line. */
export class FileProblem extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`Line ${line}: ${message}`);
  }
}

/** One row of the file: where it starts, the row as the import takes it, and why it cannot be imported, if so. */
export interface FileRow {
  line: number;
  row: Record<string, unknown>;
  problem?: string;
}

const isStrings = (field: FieldSchema) =>
  field.type === 'array' && unwrapField(field.items ?? {}).field.type === 'string';

/** Whether a record schema has this dotted path (metadata takes any key; arrays are walked into their items). */
function hasPath(schema: FieldSchema | undefined, path: readonly string[]): boolean {
  if (!schema) return false;
  const { field } = unwrapField(schema);
  if (path.length === 0) return true;
  if (field.type === 'array') return hasPath(field.items, path);
  if (isMetadataField(field)) return path.length === 1;
  const next = field.properties?.[path[0]!];
  if (next) return hasPath(next, path.slice(1));
  // A union of object shapes (a reward's `reward`): any branch.
  return (schema.anyOf ?? []).some((variant) => hasPath(variant, path));
}

/** A CSV cell as the field's value: empty is null where the field takes null, else absent (docs/api.md#import-jobs). */
function cellValue(cell: string, schema: FieldSchema): unknown {
  const { field, nullable } = unwrapField(schema);
  if (isStrings(field)) return cell === '' ? [] : cell.split('|');
  if (cell === '') return nullable ? null : undefined;
  const type = Array.isArray(field.type) ? field.type.find((each) => each !== 'null') : field.type;
  switch (type) {
    case 'integer':
    case 'number':
      return /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(cell) ? Number(cell) : cell;
    case 'boolean':
      return cell === 'true' ? true : cell === 'false' ? false : cell;
    case 'object':
    case 'array':
      try {
        return JSON.parse(cell) as unknown;
      } catch {
        return cell;
      }
    default:
      return cell;
  }
}

/** The JSON type of a value, to tell a row's `customer` (an id or email) from a record's embedded `customer`. */
function fits(value: unknown, schema: FieldSchema): boolean {
  const { field, nullable } = unwrapField(schema);
  if (value === null) return nullable;
  if (schema.anyOf && field === schema) return true;
  const types = Array.isArray(field.type) ? field.type : field.type ? [field.type] : [];
  if (types.length === 0) return true;
  const actual = Array.isArray(value)
    ? 'array'
    : typeof value === 'object'
      ? 'object'
      : typeof value === 'number'
        ? Number.isInteger(value)
          ? 'integer'
          : 'number'
        : typeof value;
  return types.some((type) => type === actual || (type === 'number' && actual === 'integer'));
}

/** How one CSV column fills a row: on the row itself, or on the item of its line. */
interface Column {
  on: 'row' | 'item';
  set: (target: Record<string, unknown>, cell: string) => void;
}

/** Reads one resource's file; CSV is stateful (a row's item lines are gathered until the next row starts). */
export class ImportFileReader {
  private readonly row: FieldSchema;
  private readonly record: FieldSchema;
  private readonly validate: (value: unknown) => ErrorDetail[] | null;
  private readonly keys = new Map<string, number>();
  private columns: (Column | undefined)[] = [];
  private itemColumns = false;
  private metadataPaths = new Set<string>();
  private pending: { key: string; line: number; row: Record<string, unknown>; items: unknown[] } | undefined;
  private index = 0;

  constructor(
    private readonly source: ImportSource,
    private readonly resource: string,
  ) {
    const data = (source.body as FieldSchema).properties!.data!;
    this.row = data.items!;
    this.record = source.record as FieldSchema;
    this.validate = compileBodyValidator(this.row);
  }

  /** The CSV header: every column is a row field, a record field read past, or the file fails (line 1). */
  header(cells: readonly string[], line: number): void {
    const names = new Set(cells);
    const lines = this.source.lines;
    this.columns = cells.map((name) => {
      const aliased = this.source.aliases?.[name];
      // A record field that carries a row field fills it only when the file has no column of that field itself.
      const target = aliased && !names.has(aliased) ? aliased : name;
      const column = this.columnFor(target.split('.'), lines?.field);
      if (column) return column;
      if (hasPath(this.record, name.split('.')) || this.source.aliases?.[name]) return undefined;
      throw new FileProblem(
        `column "${name}" is not a field of a ${this.resource} import row (nor of the record its export writes).`,
        line,
      );
    });
    this.itemColumns = this.columns.some((column) => column?.on === 'item');
  }

  private columnFor(path: readonly string[], linesField: string | undefined): Column | undefined {
    const properties = this.row.properties ?? {};
    const [name, ...rest] = path;
    const schema = properties[name!];
    if (!schema) return undefined;
    const { field } = unwrapField(schema);
    if (name === linesField && rest.length > 0) {
      const item = unwrapField(field.items ?? {}).field;
      const [itemName, ...itemRest] = rest;
      const itemSchema = item.properties?.[itemName!];
      if (!itemSchema) return undefined;
      const itemField = unwrapField(itemSchema).field;
      if (isMetadataField(itemField) && itemRest.length === 1) return metadataColumn('item', itemName!, itemRest[0]!);
      if (itemRest.length > 0 || isMetadataField(itemField)) return undefined;
      return { on: 'item', set: (target, cell) => assign(target, itemName!, cellValue(cell, itemSchema)) };
    }
    if (isMetadataField(field)) {
      if (rest.length !== 1) return undefined;
      this.metadataPaths.add(name!);
      return metadataColumn('row', name!, rest[0]!);
    }
    if (rest.length > 0) return undefined;
    return { on: 'row', set: (target, cell) => assign(target, name!, cellValue(cell, schema)) };
  }

  /** One CSV record; returns the row it completes (the previous one, once a line of another row starts). */
  csv(cells: readonly string[], line: number): FileRow | undefined {
    const row: Record<string, unknown> = {};
    for (const path of this.metadataPaths) row[path] = {};
    const item: Record<string, unknown> = {};
    // What the export did to formula-like text (docs/api.md#formulas-in-csv-files) is undone before the cell is read.
    cells.forEach((cell, index) =>
      this.columns[index]?.set(this.columns[index]!.on === 'row' ? row : item, restoreFormula(cell)),
    );
    const lines = this.source.lines;
    if (!lines || !this.itemColumns) return this.finish(row, line);
    const key = JSON.stringify(lines.key.map((name) => row[name] ?? null));
    const hasItem = Object.values(item).some(
      (value) => value !== undefined && !(Array.isArray(value) && !value.length),
    );
    if (this.pending && this.pending.key === key) {
      if (hasItem) this.pending.items.push(item);
      return undefined;
    }
    const done = this.flush();
    this.pending = { key, line, row, items: hasItem ? [item] : [] };
    return done;
  }

  /** The last row of a CSV, when its lines were still being gathered. */
  flush(): FileRow | undefined {
    const pending = this.pending;
    this.pending = undefined;
    if (!pending) return undefined;
    return this.finish({ ...pending.row, [this.source.lines!.field]: pending.items }, pending.line);
  }

  /** One JSON Lines value: a row of the import, or a record as the list writes it. */
  json(value: unknown, line: number): FileRow {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      this.index += 1;
      return { line, row: {}, problem: `The line is not a JSON object (a ${this.resource} import row).` };
    }
    return this.finish(this.fromRecord(value as Record<string, unknown>, this.row, this.record, ''), line);
  }

  /** A JSON object with the row's fields: record fields carrying a row field fill it, others are read past. */
  private fromRecord(
    value: Record<string, unknown>,
    rowSchema: FieldSchema,
    recordSchema: FieldSchema | undefined,
    prefix: string,
  ): Record<string, unknown> {
    const properties = rowSchema.properties ?? {};
    const record = recordSchema ? unwrapField(recordSchema).field : undefined;
    const out: Record<string, unknown> = {};
    const lines = this.source.lines?.field;
    for (const [name, field] of Object.entries(value)) {
      const schema = properties[name];
      if (schema && fits(field, schema)) {
        if (prefix === '' && name === lines && Array.isArray(field)) {
          const itemSchema = unwrapField(schema).field.items ?? {};
          const recordItems = record?.properties?.[name];
          out[name] = field.map((item) =>
            item && typeof item === 'object' && !Array.isArray(item)
              ? this.fromRecord(
                  item as Record<string, unknown>,
                  unwrapField(itemSchema).field,
                  recordItems ? unwrapField(recordItems).field.items : undefined,
                  `${name}.`,
                )
              : item,
          );
        } else {
          out[name] = field;
        }
        continue;
      }
      const alias = this.source.aliases?.[`${prefix}${name}`]?.slice(prefix.length);
      if (alias && properties[alias] && !(alias in value && fits(value[alias], properties[alias]))) {
        out[alias] = field;
        continue;
      }
      if (record?.properties?.[name]) continue;
      out[name] = field;
    }
    return out;
  }

  /** Checks a row against the import's row schema and the file's earlier rows; numbers it. */
  private finish(row: Record<string, unknown>, line: number): FileRow {
    this.index += 1;
    const details = this.validate(row);
    if (details) return { line, row, problem: describe(details) };
    const key = this.source.duplicateKey?.(row);
    if (key !== undefined) {
      const first = this.keys.get(key);
      if (first !== undefined)
        return { line, row, problem: `It names the same record as row ${first}; a file names each record once.` };
      this.keys.set(key, this.index - 1);
    }
    return { line, row };
  }
}

function assign(target: Record<string, unknown>, name: string, value: unknown): void {
  if (value !== undefined) target[name] = value;
}

function metadataColumn(on: 'row' | 'item', field: string, key: string): Column {
  return {
    on,
    set: (target, cell) => {
      if (cell === '') return;
      const metadata = (target[field] as Record<string, string> | undefined) ?? {};
      metadata[key] = cell;
      target[field] = metadata;
    },
  };
}

/** The row's first problem as a sentence, as a synchronous import's 400 names it (`row.email must be …`). */
function describe(details: readonly ErrorDetail[]): string {
  const first = details[0]!;
  const more = details.length > 1 ? ` (and ${details.length - 1} more problem${details.length > 2 ? 's' : ''})` : '';
  return `${first.path} ${first.message}${more}.`;
}
