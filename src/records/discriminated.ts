import Type, { type Static, type TObject, type TSchema, type TUnion, type TUnsafe } from 'typebox';

/**
 * A union of objects told apart by `type`, validated branch by branch with if/then: the request validator then
 * reports the one branch the caller chose ("reward.percentageDiscount must be <= 100"), not every branch's
 * mismatch, and an unknown `type` is one enum error. Each branch is a strict object with `type: Literal(...)`.
 */
export function discriminated<T extends TObject[]>(
  branches: [...T],
  options: { description?: string } = {},
): TUnsafe<Static<TUnion<T>>> {
  const names = branches.map((branch) => (branch.properties as { type: { const: string } }).type.const);
  return Type.Unsafe<Static<TUnion<T>>>({
    type: 'object',
    required: ['type'],
    properties: { type: { type: 'string', enum: names } },
    allOf: branches.map((branch, index) => ({
      if: { type: 'object', properties: { type: { const: names[index] } }, required: ['type'] },
      then: branch,
    })),
    ...(options.description ? { description: options.description } : {}),
  });
}

/**
 * A schema validated and serialized as `validated`, and written in the OpenAPI document as `documented`
 * (docs/api.md#the-openapi-document). For a field whose shape depends on another field (a rule's config on its
 * section): the route accepts any object and the service checks it against the right schema, with errors that name
 * that one; the document shows the union of the schemas it may be, which generators turn into a type.
 */
export function documentedAs<T extends TSchema>(validated: T, documented: TSchema): T {
  return { ...validated, 'x-documented-as': documented };
}
