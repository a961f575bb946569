import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import fastJson from 'fast-json-stringify';

type Schema = Record<string, unknown>;
type Serializer = (value: unknown) => string;

/** Keywords whose value is one subschema, a map of subschemas, or a list of subschemas. */
const ONE = new Set([
  'additionalProperties',
  'items',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
]);
const MAP = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const LIST = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
/** Keywords that change what is written, not only what is valid: a member carrying one keeps its union. */
const WRITE_SHAPING = ['const', 'anyOf', 'oneOf', 'allOf', '$ref', 'if'];

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isNull = (schema: Schema) =>
  schema.type === 'null' &&
  Object.keys(schema).every((key) => key === 'type' || key === 'description' || key === 'title');

/**
 * The schema fast-json-stringify is given, with every `anyOf`/`oneOf` of one typed schema and null (TypeBox's
 * `Union([T, Null])`, the shape of every nullable field) written as `type: [T's type, 'null']`. The JSON is the
 * same, but fast-json-stringify writes a union by running an Ajv validation of each branch until one matches (a
 * uuid format check per nullable id, per record, per response and per event), and a type list by a typeof test.
 * A union of constants of one type (an enum) is written as that type. Unions of several shapes keep their
 * validation: it is what picks the branch. The original schema (the one request validation and the OpenAPI
 * document see) is not touched.
 */
export function serializationSchema(schema: unknown, seen = new WeakMap<object, unknown>()): unknown {
  if (Array.isArray(schema)) return schema.map((member) => serializationSchema(member, seen));
  if (!isSchema(schema)) return schema;
  const done = seen.get(schema);
  if (done) return done;
  const copy: Schema = {};
  seen.set(schema, copy);
  for (const [key, value] of Object.entries(schema)) {
    if (ONE.has(key) || LIST.has(key)) copy[key] = serializationSchema(value, seen);
    else if (MAP.has(key) && isSchema(value)) {
      copy[key] = Object.fromEntries(
        Object.entries(value).map(([name, member]) => [name, serializationSchema(member, seen)]),
      );
    } else copy[key] = value;
  }
  for (const union of ['anyOf', 'oneOf'] as const) {
    const members = copy[union];
    const typed =
      Array.isArray(members) && members.length > 0 && members.every(isSchema) ? singleTyped(members) : undefined;
    if (!typed) continue;
    const { [union]: _members, ...outer } = copy;
    replace(copy, { ...outer, ...typed });
  }
  return copy;
}

/** What a union writes as, when one type test can tell its members apart: an enum, or a nullable schema. */
function singleTyped(members: readonly Schema[]): Schema | undefined {
  const type = literalType(members);
  if (type) return { type, enum: members.map((member) => member.const) };
  if (members.length !== 2) return undefined;
  const nullIndex = members.findIndex(isNull);
  const other = members[1 - nullIndex];
  if (nullIndex < 0 || !other || typeof other.type !== 'string' || other.type === 'null') return undefined;
  if (WRITE_SHAPING.some((key) => key in other)) return undefined;
  return { ...other, type: [other.type, 'null'] };
}

/** The one type of a union of constants of that type (TypeBox's Union of Literals, an enum), if it is one. */
function literalType(members: readonly Schema[]): string | undefined {
  const type = members[0]!.type;
  const plain = (member: Schema) =>
    Object.keys(member).every((key) => key === 'const' || key === 'type' || key === 'description');
  return typeof type === 'string' &&
    members.every((member) => member.type === type && member.const !== undefined && plain(member))
    ? type
    : undefined;
}

/** Rewrites a copy in place: other schemas already hold a reference to it (recursive schemas, shared members). */
function replace(target: Schema, value: Schema) {
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, value);
}

/** A serializer for a response or event schema: fast-json-stringify over its serialization schema. */
export function compileSerializer(schema: unknown): Serializer {
  return fastJson(serializationSchema(schema) as Parameters<typeof fastJson>[0]) as Serializer;
}

/**
 * Fastify's response serializer factory: its default (fast-json-stringify, with the schemas added by addSchema),
 * given serialization schemas. Responses and webhook payloads (src/events/serialize.ts) are written alike.
 */
export const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const external = isSchema(externalSchemas)
    ? Object.fromEntries(Object.entries(externalSchemas).map(([id, schema]) => [id, serializationSchema(schema)]))
    : externalSchemas;
  const compile = SerializerSelector()(external, options);
  return (route) => compile({ ...route, schema: serializationSchema(route.schema) });
};
