import Type, { type Static, type TObject, type TUnion, type TUnsafe } from 'typebox';

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
