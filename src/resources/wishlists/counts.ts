/**
 * How a change of a wishlist's items moves its products' wishlistsCount: +1 for a product the list holds now and
 * did not, -1 for one it held and no longer does, however many items (variants) name it (docs/api.md#wishlists).
 * Only exact while the wishlist is locked, which every writer does first.
 */
export function countDeltas(
  changes: Iterable<{ before: readonly { product_id: string }[]; after: readonly { product_id: string }[] }>,
): Map<string, number> {
  const deltas = new Map<string, number>();
  for (const { before, after } of changes) {
    const held = new Set(before.map((item) => item.product_id));
    const holds = new Set(after.map((item) => item.product_id));
    for (const product of holds) if (!held.has(product)) deltas.set(product, (deltas.get(product) ?? 0) + 1);
    for (const product of held) if (!holds.has(product)) deltas.set(product, (deltas.get(product) ?? 0) - 1);
  }
  return deltas;
}
