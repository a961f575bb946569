import type { TSchema } from 'typebox';

/**
 * A schema validated and serialized as `validated`, and written in the OpenAPI document as `documented`
 * (docs/api.md#the-openapi-document). For a field whose shape depends on another field (a rule's config on its
 * section): the schema takes any object, a check before the request acts matches it against the right shape (with
 * errors that name that shape's fields), and answers write the stored object as it is; the document shows the union
 * of the shapes it may be, which generators turn into a type. `documented` is read by the document only.
 */
export function documentedAs<T extends TSchema>(validated: T, documented: object): T {
  return { ...validated, 'x-documented-as': documented };
}

/**
 * A schema written in the OpenAPI document as the component `name` (a `$ref` where it is used), so generators give
 * it that name. Only the document reads the mark (src/http/openapi-document.ts).
 */
export function documentedComponent<T extends object>(name: string, schema: T): T {
  return { ...schema, 'x-component-name': name };
}
