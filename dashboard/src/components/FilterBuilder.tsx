import { useState, type FormEvent } from 'react';
import {
  ActionIcon,
  Button,
  Code,
  Group,
  MultiSelect,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  TagsInput,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { PatronError } from '@patron/client/browser';
import { activeFormat } from '../lib/format';
import { minorToMajorText, parseMajor } from '../lib/money';
import { instantToWallTime, wallTimeToInstant } from '../lib/time';

/**
 * A list's filter document built from rows of conditions (docs/api.md#filter-documents): field, operator and value,
 * all or any of them (`$and` / `$or`), or written as JSON for what rows cannot say (nesting, `$not`). The document is
 * what the list's `filter` parameter takes; the API checks it, and a refusal (400) is shown next to the condition it
 * names.
 */

/** A field's type as the list's OpenAPI description says it (`x-filterable-fields`). */
export type FilterFieldType = 'string' | 'uuid' | 'integer' | 'money' | 'timestamp' | 'boolean' | 'enum' | 'metadata';

export interface FilterField {
  /** The filter key: `totalCents`, `customer.email`, `tags.name`; for metadata the prefix (`metadata`, `customer.metadata`). */
  name: string;
  label: string;
  type: FilterFieldType;
  /** An enum's values. */
  values?: readonly string[];
  /** Shown under the value, e.g. "in cents". */
  hint?: string;
}

export type FilterDocument = Record<string, unknown>;

type Operator =
  '$eq' | '$ne' | '$contains' | '$startsWith' | '$gt' | '$gte' | '$lt' | '$lte' | '$in' | '$nin' | 'exists' | 'missing';

const OPERATORS_OF: Record<FilterFieldType, Operator[]> = {
  string: ['$eq', '$ne', '$contains', '$startsWith', '$in', '$nin', '$gt', '$gte', '$lt', '$lte', 'exists', 'missing'],
  metadata: [
    '$eq',
    '$ne',
    '$contains',
    '$startsWith',
    '$in',
    '$nin',
    '$gt',
    '$gte',
    '$lt',
    '$lte',
    'exists',
    'missing',
  ],
  uuid: ['$eq', '$ne', '$in', '$nin', 'exists', 'missing'],
  integer: ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', 'exists', 'missing'],
  money: ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', 'exists', 'missing'],
  timestamp: ['$gte', '$lt', '$gt', '$lte', 'exists', 'missing'],
  boolean: ['$eq', '$ne', 'exists', 'missing'],
  enum: ['$eq', '$ne', '$in', '$nin', 'exists', 'missing'],
};

function operatorLabel(operator: Operator, type: FilterFieldType): string {
  const time = type === 'timestamp';
  switch (operator) {
    case '$eq':
      return 'is';
    case '$ne':
      return 'is not';
    case '$contains':
      return 'contains';
    case '$startsWith':
      return 'starts with';
    case '$gt':
      return time ? 'after' : 'greater than';
    case '$gte':
      return time ? 'at or after' : 'at least';
    case '$lt':
      return time ? 'before' : 'less than';
    case '$lte':
      return time ? 'at or before' : 'at most';
    case '$in':
      return 'is one of';
    case '$nin':
      return 'is none of';
    case 'exists':
      return 'has a value';
    case 'missing':
      return 'has no value';
  }
}

interface Condition {
  /** React's key, stable while editing. */
  id: number;
  field: string;
  /** The metadata key, for metadata fields. */
  metaKey: string;
  operator: Operator;
  value: string;
  values: string[];
}

type Match = 'all' | 'any';

interface Built {
  match: Match;
  conditions: Condition[];
}

let nextId = 1;
const newCondition = (field: FilterField): Condition => ({
  id: nextId++,
  field: field.name,
  metaKey: '',
  operator: OPERATORS_OF[field.type][0]!,
  value: field.type === 'boolean' ? 'true' : '',
  values: [],
});

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `2026-03-01T10:00` (a datetime-local input's value, in the organization's zone) → an ISO instant. */
function localToIso(local: string): string {
  return wallTimeToInstant(local, activeFormat().timeZone) ?? local;
}

/** An ISO instant → `2026-03-01T10:00` in the organization's zone, for a datetime-local input. */
function isoToLocal(iso: string): string {
  return instantToWallTime(iso, activeFormat().timeZone) ?? iso;
}

/**
 * A typed operand: integers as numbers and booleans as booleans when they read as such; anything else is sent as
 * typed, for the API to accept or refuse (its answer names the condition).
 */
function operand(raw: string, type: FilterFieldType): unknown {
  const text = raw.trim();
  if (type === 'integer') return /^-?\d+$/.test(text) ? Number(text) : text;
  // Typed in major units of the organization's currency; sent in minor units, as the API stores amounts.
  if (type === 'money') {
    const parsed = parseMajor(text, activeFormat().currency, { allowNegative: true });
    return parsed.minor ?? text;
  }
  if (type === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  if (type === 'timestamp') return localToIso(text);
  return raw;
}

function display(value: unknown, type: FilterFieldType): string {
  if (type === 'timestamp' && typeof value === 'string') return isoToLocal(value);
  if (type === 'money' && typeof value === 'number' && Number.isSafeInteger(value))
    return minorToMajorText(value, activeFormat().currency);
  return String(value);
}

/** A money field names the currency its amounts are typed in: "Total (EUR)". */
const fieldLabel = (field: FilterField) =>
  field.type === 'money' ? `${field.label} (${activeFormat().currency})` : field.label;

function fieldOf(fields: readonly FilterField[], name: string): FilterField {
  return fields.find((field) => field.name === name) ?? fields[0]!;
}

/** The condition as one filter object: `{ "totalCents": { "$gte": 5000 } }`. */
function conditionDocument(condition: Condition, fields: readonly FilterField[]): FilterDocument {
  const field = fieldOf(fields, condition.field);
  const key = field.type === 'metadata' ? `${field.name}.${condition.metaKey.trim()}` : field.name;
  switch (condition.operator) {
    case 'exists':
      return { [key]: { $exists: true } };
    case 'missing':
      return { [key]: { $exists: false } };
    case '$in':
    case '$nin':
      return { [key]: { [condition.operator]: condition.values.map((value) => operand(value, field.type)) } };
    default:
      return { [key]: { [condition.operator]: operand(condition.value, field.type) } };
  }
}

/** The filter document of the rows: `{}` for none, the condition itself for one, `$and`/`$or` of them otherwise. */
export function buildFilter(built: Built, fields: readonly FilterField[]): FilterDocument {
  const parts = built.conditions.map((condition) => conditionDocument(condition, fields));
  if (parts.length === 0) return {};
  if (parts.length === 1) return parts[0]!;
  return { [built.match === 'all' ? '$and' : '$or']: parts };
}

/** Which field a document's key is: an exact name, or `<metadata field>.<key>`. */
function resolveKey(fields: readonly FilterField[], key: string): { field: FilterField; metaKey: string } | null {
  const exact = fields.find((field) => field.name === key && field.type !== 'metadata');
  if (exact) return { field: exact, metaKey: '' };
  for (const field of fields) {
    if (field.type === 'metadata' && key.startsWith(`${field.name}.`) && key.length > field.name.length + 1)
      return { field, metaKey: key.slice(field.name.length + 1) };
  }
  return null;
}

/** The conditions of a plain filter object (`{ key: literal | { $op: value, … }, … }`), or null if it has others. */
function conditionsOf(fields: readonly FilterField[], object: Record<string, unknown>): Condition[] | null {
  const conditions: Condition[] = [];
  for (const [key, value] of Object.entries(object)) {
    const resolved = resolveKey(fields, key);
    if (!resolved) return null;
    const { field, metaKey } = resolved;
    const base = { id: nextId++, field: field.name, metaKey, value: '', values: [] as string[] };
    const operators: Record<string, unknown> = isPlainObject(value) ? value : { $eq: value };
    for (const [operator, operandValue] of Object.entries(operators)) {
      if (operator === '$exists' && typeof operandValue === 'boolean') {
        conditions.push({ ...base, id: nextId++, operator: operandValue ? 'exists' : 'missing' });
      } else if (operator === '$eq' && operandValue === null) {
        conditions.push({ ...base, id: nextId++, operator: 'missing' });
      } else if ((operator === '$in' || operator === '$nin') && Array.isArray(operandValue)) {
        conditions.push({
          ...base,
          id: nextId++,
          operator,
          values: operandValue.map((entry) => display(entry, field.type)),
        });
      } else if (
        (OPERATORS_OF[field.type] as string[]).includes(operator) &&
        ['string', 'number', 'boolean'].includes(typeof operandValue)
      ) {
        conditions.push({
          ...base,
          id: nextId++,
          operator: operator as Operator,
          value: display(operandValue, field.type),
        });
      } else {
        return null;
      }
    }
  }
  return conditions;
}

/** The rows a document reads as, or null when rows cannot say it (nesting, `$not`, unknown keys): JSON then. */
export function parseFilter(fields: readonly FilterField[], document: FilterDocument): Built | null {
  const keys = Object.keys(document);
  if (keys.length === 1 && (keys[0] === '$and' || keys[0] === '$or')) {
    const parts = document[keys[0]];
    if (!Array.isArray(parts)) return null;
    const conditions: Condition[] = [];
    for (const part of parts) {
      if (!isPlainObject(part)) return null;
      const own = conditionsOf(fields, part);
      // Under $or, a part of several conditions would be their AND: not a row each.
      if (!own || (keys[0] === '$or' && own.length !== 1)) return null;
      conditions.push(...own);
    }
    return { match: keys[0] === '$and' ? 'all' : 'any', conditions };
  }
  if (keys.some((key) => key.startsWith('$'))) return null;
  const conditions = conditionsOf(fields, document);
  return conditions ? { match: 'all', conditions } : null;
}

/** The details of a 400 that are about the filter (`query.filter…`, `body.filter…`). */
export function filterErrorDetails(error: unknown): { path: string; message: string }[] {
  if (!(error instanceof PatronError) || error.status !== 400) return [];
  return error.details.filter((detail) => /^(query|body)\.filter\b/.test(detail.path));
}

/** Whether `error` is the API refusing a filter document. */
export function isFilterRefusal(error: unknown): boolean {
  return (
    filterErrorDetails(error).length > 0 ||
    (error instanceof PatronError && error.status === 400 && /\bfilter\b/i.test(error.message))
  );
}

/** The row a detail path names: `query.filter.$and[1].totalCents.$gt` → 1; `query.filter.totalCents` → the only row. */
function rowOfDetail(path: string, built: Built, fields: readonly FilterField[]): number | null {
  const indexed = /^(?:query|body)\.filter\.\$(?:and|or)\[(\d+)\]/.exec(path);
  if (indexed) return Number(indexed[1]);
  if (built.conditions.length === 1) return 0;
  const rest = path.replace(/^(?:query|body)\.filter\.?/, '');
  const index = built.conditions.findIndex((condition) => {
    const field = fieldOf(fields, condition.field);
    const key = field.type === 'metadata' ? `${field.name}.${condition.metaKey}` : field.name;
    return rest === key || rest.startsWith(`${key}.`);
  });
  return index >= 0 ? index : null;
}

export interface FilterBuilderProps {
  /** The list's filterable fields (its `x-filterable-fields`). */
  fields: readonly FilterField[];
  /** The filter the list is using now. */
  value: FilterDocument;
  /** Called with the new document when the user applies it (`{}` when cleared). */
  onApply: (document: FilterDocument) => void;
  /** The list's error: a refusal of the filter (400) is shown next to the condition it names. */
  error?: unknown;
  /** Names the builder for assistive technology, e.g. "Filter orders". */
  label?: string;
}

/** Builds a list's filter document (docs/api.md#filter-documents) from conditions, or as JSON. */
export function FilterBuilder({ fields, value, onApply, error, label = 'Filter' }: FilterBuilderProps) {
  const valueKey = JSON.stringify(value);
  const fromValue = () => {
    const built = parseFilter(fields, value);
    return { valueKey, built: built ?? { match: 'all' as Match, conditions: [] }, json: built ? null : valueKey };
  };
  const [state, setState] = useState(fromValue);
  // The applied filter changed from outside (a quick filter, the address bar): start from it.
  if (state.valueKey !== valueKey) setState(fromValue());
  const { built, json } = state;
  const [jsonError, setJsonError] = useState<string | null>(null);

  const setBuilt = (next: Built) => setState((current) => ({ ...current, built: next }));
  const setJson = (next: string | null) => setState((current) => ({ ...current, json: next }));
  const update = (index: number, change: Partial<Condition>) =>
    setBuilt({
      ...built,
      conditions: built.conditions.map((condition, i) => (i === index ? { ...condition, ...change } : condition)),
    });

  const document = json === null ? buildFilter(built, fields) : null;
  const details = filterErrorDetails(error);
  const rowErrors = new Map<number, string>();
  const unplaced: string[] = [];
  if (json === null) {
    for (const detail of details) {
      const row = rowOfDetail(detail.path, built, fields);
      if (row === null || row >= built.conditions.length) unplaced.push(`${detail.path} ${detail.message}`);
      else rowErrors.set(row, rowErrors.has(row) ? `${rowErrors.get(row)}; ${detail.message}` : detail.message);
    }
  }
  const refused = isFilterRefusal(error) && error instanceof PatronError ? error : null;

  const apply = (event: FormEvent) => {
    event.preventDefault();
    if (json === null) {
      onApply(buildFilter(built, fields));
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(json || '{}');
    } catch (cause) {
      setJsonError(`This is not JSON: ${(cause as Error).message}`);
      return;
    }
    if (!isPlainObject(parsed)) {
      setJsonError('A filter document is a JSON object, such as {"totalCents": {"$gte": 5000}}.');
      return;
    }
    setJsonError(null);
    onApply(parsed);
  };

  const toJson = () => setJson(JSON.stringify(buildFilter(built, fields), null, 2));
  const toRows = () => {
    if (json === null) return;
    try {
      const parsed: unknown = JSON.parse(json || '{}');
      const rows = isPlainObject(parsed) ? parseFilter(fields, parsed) : null;
      if (!rows) {
        setJsonError('This document has more than conditions can show (nesting or $not): keep editing it as JSON.');
        return;
      }
      setJsonError(null);
      setState((current) => ({ ...current, built: rows, json: null }));
    } catch (cause) {
      setJsonError(`This is not JSON: ${(cause as Error).message}`);
    }
  };

  return (
    <Paper
      withBorder
      p="sm"
      component="form"
      onSubmit={apply}
      aria-label={label}
      // Mantine's error red (red.6) is below AA contrast on white at the small sizes used here.
      style={{ '--mantine-color-error': 'var(--mantine-color-red-8)' } as React.CSSProperties}
    >
      <Stack gap="xs">
        {json === null ? (
          <>
            {built.conditions.length > 1 && (
              <Group gap="xs">
                <Text size="sm" id={`${label}-match`}>
                  Match
                </Text>
                <SegmentedControl
                  size="xs"
                  aria-labelledby={`${label}-match`}
                  value={built.match}
                  onChange={(match) => setBuilt({ ...built, match: match as Match })}
                  data={[
                    { value: 'all', label: 'all ($and)' },
                    { value: 'any', label: 'any ($or)' },
                  ]}
                />
                <Text size="sm">of these conditions</Text>
              </Group>
            )}
            {built.conditions.length === 0 && (
              <Text size="sm" c="dimmed">
                No conditions: the list shows everything.
              </Text>
            )}
            {built.conditions.map((condition, index) => (
              <ConditionRow
                key={condition.id}
                index={index}
                condition={condition}
                fields={fields}
                error={rowErrors.get(index)}
                onChange={(change) => update(index, change)}
                onRemove={() => setBuilt({ ...built, conditions: built.conditions.filter((_, i) => i !== index) })}
              />
            ))}
          </>
        ) : (
          <Textarea
            label="Filter document (JSON)"
            description="Any document the list accepts: fields, $eq $ne $gt $gte $lt $lte $in $nin $exists $contains $startsWith, $and $or $not."
            autosize
            minRows={3}
            maxRows={14}
            ff="monospace"
            value={json}
            onChange={(event) => setJson(event.currentTarget.value)}
            error={jsonError ?? (details.length > 0 ? details.map((d) => `${d.path} ${d.message}`).join('; ') : null)}
          />
        )}
        {json === null && jsonError && (
          <Text size="sm" c="red.8">
            {jsonError}
          </Text>
        )}
        {refused && (
          <Text size="sm" c="red.8" role="status">
            The API refused this filter: {refused.message}
            {unplaced.length > 0 && ` (${unplaced.join('; ')})`}
          </Text>
        )}
        <Group gap="xs" justify="space-between">
          <Group gap="xs">
            {json === null && (
              <Button
                variant="default"
                size="xs"
                onClick={() => setBuilt({ ...built, conditions: [...built.conditions, newCondition(fields[0]!)] })}
              >
                Add condition
              </Button>
            )}
            <Button type="submit" size="xs">
              Apply filter
            </Button>
            <Button
              variant="subtle"
              size="xs"
              onClick={() => {
                setJsonError(null);
                setState((current) => ({ ...current, built: { match: 'all', conditions: [] }, json: null }));
                onApply({});
              }}
            >
              Clear
            </Button>
          </Group>
          <Button variant="subtle" size="xs" onClick={json === null ? toJson : toRows}>
            {json === null ? 'Edit as JSON' : 'Edit as conditions'}
          </Button>
        </Group>
        {document && Object.keys(document).length > 0 && (
          <Code
            block
            data-testid="filter-document"
            aria-label="The filter document"
            style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
          >
            {JSON.stringify(document)}
          </Code>
        )}
      </Stack>
    </Paper>
  );
}

function ConditionRow({
  index,
  condition,
  fields,
  error,
  onChange,
  onRemove,
}: {
  index: number;
  condition: Condition;
  fields: readonly FilterField[];
  error: string | undefined;
  onChange: (change: Partial<Condition>) => void;
  onRemove: () => void;
}) {
  const field = fieldOf(fields, condition.field);
  const operators = OPERATORS_OF[field.type];
  const n = index + 1;
  const noValue = condition.operator === 'exists' || condition.operator === 'missing';
  const many = condition.operator === '$in' || condition.operator === '$nin';
  const valueLabel = `Value of condition ${n}`;

  let valueInput = null;
  if (noValue) valueInput = null;
  else if (many && field.type === 'enum')
    valueInput = (
      <MultiSelect
        aria-label={valueLabel}
        data={[...(field.values ?? [])]}
        value={condition.values}
        onChange={(values) => onChange({ values })}
        error={error}
        size="xs"
        miw={180}
      />
    );
  else if (many)
    valueInput = (
      <TagsInput
        aria-label={valueLabel}
        placeholder="Type a value, Enter"
        value={condition.values}
        onChange={(values) => onChange({ values })}
        error={error}
        size="xs"
        miw={180}
        style={{ flex: 1 }}
      />
    );
  else if (field.type === 'boolean' || field.type === 'enum')
    valueInput = (
      <Select
        aria-label={valueLabel}
        data={field.type === 'boolean' ? ['true', 'false'] : [...(field.values ?? [])]}
        value={condition.value || null}
        onChange={(value) => onChange({ value: value ?? '' })}
        allowDeselect={false}
        error={error}
        size="xs"
        w={160}
      />
    );
  else
    valueInput = (
      <TextInput
        aria-label={valueLabel}
        type={field.type === 'timestamp' ? 'datetime-local' : 'text'}
        inputMode={field.type === 'integer' ? 'numeric' : field.type === 'money' ? 'decimal' : undefined}
        placeholder={field.hint ?? (field.type === 'uuid' ? 'An id' : 'Value')}
        value={condition.value}
        onChange={(event) => onChange({ value: event.currentTarget.value })}
        error={error}
        size="xs"
        miw={160}
        style={{ flex: 1 }}
      />
    );

  return (
    <Group gap="xs" align="flex-start" wrap="nowrap" data-testid="filter-condition">
      <Group gap="xs" align="flex-start" wrap="wrap" style={{ flex: 1 }}>
        <Select
          aria-label={`Field of condition ${n}`}
          data={fields.map((entry) => ({ value: entry.name, label: fieldLabel(entry) }))}
          value={condition.field}
          onChange={(name) => {
            if (!name) return;
            const next = fieldOf(fields, name);
            const keep = OPERATORS_OF[next.type].includes(condition.operator);
            onChange({
              field: name,
              operator: keep ? condition.operator : OPERATORS_OF[next.type][0]!,
              value: next.type === 'boolean' ? 'true' : next.type === field.type ? condition.value : '',
              values: next.type === field.type ? condition.values : [],
            });
          }}
          allowDeselect={false}
          searchable
          size="xs"
          w={{ base: '100%', xs: 190 }}
        />
        {field.type === 'metadata' && (
          <TextInput
            aria-label={`Metadata key of condition ${n}`}
            placeholder="key"
            value={condition.metaKey}
            onChange={(event) => onChange({ metaKey: event.currentTarget.value })}
            size="xs"
            w={110}
          />
        )}
        <Select
          aria-label={`Operator of condition ${n}`}
          data={operators.map((operator) => ({ value: operator, label: operatorLabel(operator, field.type) }))}
          value={condition.operator}
          onChange={(operator) => operator && onChange({ operator: operator as Operator })}
          allowDeselect={false}
          size="xs"
          w={140}
        />
        {valueInput}
      </Group>
      <ActionIcon variant="subtle" color="gray" size="input-xs" aria-label={`Remove condition ${n}`} onClick={onRemove}>
        ×
      </ActionIcon>
    </Group>
  );
}
