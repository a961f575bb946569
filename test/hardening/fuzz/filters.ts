import fc from 'fast-check';
import type { Schema } from './openapi.js';
import { kindOfField } from './pools.js';
import { dateTime, type ValueContext } from './values.js';

export type FieldType = 'uuid' | 'timestamp' | 'integer' | 'boolean' | 'enum' | 'string' | 'metadata';

/** A field a filter document may name: from the list's documented record, plus the usual dot paths. */
export interface FilterField {
  name: string;
  type: FieldType;
  values?: unknown[];
}

const DOT_PATHS: FilterField[] = [
  { name: 'customer.id', type: 'uuid' },
  { name: 'customer.email', type: 'string' },
  { name: 'customer.firstName', type: 'string' },
  { name: 'customer.metadata.channel', type: 'string' },
  { name: 'customer.emailOptOut', type: 'boolean' },
  { name: 'customer.createdAt', type: 'timestamp' },
  { name: 'tags.name', type: 'string' },
  { name: 'items.productId', type: 'uuid' },
  { name: 'variants.slug', type: 'string' },
  { name: 'variants.metadata.color', type: 'string' },
  { name: 'rule.name', type: 'string' },
  { name: 'metadata.channel', type: 'string' },
  { name: 'metadata.color', type: 'string' },
];

/**
 * The filter fields of a list operation: every scalar field of its documented record (not all are filterable; a
 * field that is not is a 400, which the fuzzer accepts), the metadata paths and the common joined paths.
 */
export function filterFieldsOf(itemSchema: Schema, resolve: (schema: Schema) => Schema): FilterField[] {
  const fields: FilterField[] = [];
  for (const [name, raw] of Object.entries<Schema>(resolve(itemSchema).properties ?? {})) {
    const schema = resolve(raw);
    const branch = (schema.anyOf ?? [schema]).map(resolve).find((b: Schema) => b.type !== 'null') ?? schema;
    if (branch.format === 'uuid') fields.push({ name, type: 'uuid' });
    else if (branch.format === 'date-time') fields.push({ name, type: 'timestamp' });
    else if (branch.type === 'integer' || branch.type === 'number') fields.push({ name, type: 'integer' });
    else if (branch.type === 'boolean') fields.push({ name, type: 'boolean' });
    else if (Array.isArray(branch.enum)) fields.push({ name, type: 'enum', values: branch.enum });
    else if (branch.anyOf && branch.anyOf.every((b: Schema) => b.enum))
      fields.push({ name, type: 'enum', values: branch.anyOf.flatMap((b: Schema) => b.enum) });
    else if (branch.type === 'string') fields.push({ name, type: 'string' });
    else if (name === 'metadata') fields.push({ name, type: 'metadata' });
  }
  return [...fields, ...DOT_PATHS];
}

const COMPARISONS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte'];

/**
 * Filter documents after docs/api.md's grammar: literals, operator objects, $and/$or/$not, to a depth of three.
 * With `odd`, operands stray from the field's type now and then (a 400 or an empty page, never a 500).
 */
export function filterArbitrary(fields: FilterField[], ctx: ValueContext, odd = false): fc.Arbitrary<string> {
  const usable = fields.filter((field) => field.type !== 'metadata');
  if (!usable.length) return fc.constant('{}');
  const condition = fc.constantFrom(...usable).chain((field) => {
    const operand = odd
      ? fc.oneof(operandArbitrary(field, ctx), fc.jsonValue({ maxDepth: 1 }))
      : operandArbitrary(field, ctx);
    const ordered = field.type === 'integer' || field.type === 'timestamp' || field.type === 'string';
    const operators = fc.oneof(
      operand,
      fc.constant(null),
      fc.record({ $exists: fc.boolean() }),
      fc
        .tuple(fc.constantFrom(...(ordered ? COMPARISONS : ['$eq', '$ne'])), operand)
        .map(([op, value]) => ({ [op]: value })),
      fc
        .tuple(fc.constantFrom('$in', '$nin'), fc.array(operand, { minLength: 1, maxLength: 3 }))
        .map(([op, values]) => ({ [op]: values })),
      ...(field.type === 'string'
        ? [
            fc
              .tuple(fc.constantFrom('$contains', '$startsWith'), fc.constantFrom('a', 'A', '%', '_', 'é', ''))
              .map(([op, value]) => ({ [op]: value })),
          ]
        : []),
      fc
        .tuple(
          fc.constantFrom(...(ordered ? ['$gte', '$gt'] : ['$ne'])),
          operand,
          fc.constantFrom(...(ordered ? ['$lte', '$lt'] : ['$ne'])),
          operand,
        )
        .map(([a, x, b, y]) => ({ [a]: x, [b]: y })),
    );
    return operators.map((value) => ({ [field.name]: value }) as Record<string, unknown>);
  });
  const { document } = fc.letrec<{ document: Record<string, unknown> }>((tie) => ({
    document: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.array(condition, { minLength: 1, maxLength: 3 }).map((parts) => Object.assign({}, ...parts)),
      fc
        .tuple(fc.constantFrom('$and', '$or'), fc.array(tie('document'), { minLength: 1, maxLength: 2 }))
        .map(([op, parts]) => ({ [op]: parts })),
      tie('document').map((inner) => ({ $not: inner })),
    ),
  }));
  return document.map((value) => JSON.stringify(value));
}

function operandArbitrary(field: FilterField, ctx: ValueContext): fc.Arbitrary<unknown> {
  switch (field.type) {
    case 'uuid': {
      const kind = kindOfField(field.name.replace(/^customer\.id$/, 'customerId').replace(/^id$/, ''));
      const own = kind ? ctx.own.ids[kind] : Object.values(ctx.own.ids).flat().slice(0, 40);
      return own.length ? fc.oneof(fc.constantFrom(...own), fc.uuid()) : fc.uuid();
    }
    case 'timestamp':
      return dateTime();
    case 'integer':
      return fc.oneof(
        fc.integer({ min: -10, max: 100_000 }),
        fc.constantFrom(0, 2 ** 31, -(2 ** 31) - 1, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER),
      );
    case 'boolean':
      return fc.boolean();
    case 'enum':
      return fc.constantFrom(...(field.values ?? ['x']));
    default:
      return fc.constantFrom(
        'a',
        'Ann',
        'vip',
        'sale',
        'R-1',
        '#1001',
        'product-1',
        'customer1-A@example.com',
        'web',
        'red',
        '',
        '%',
        'ünï',
      );
  }
}
