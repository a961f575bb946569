import { validationError } from '../core/errors.js';

/**
 * Trims tag names, collapses duplicates, refuses names that are empty once trimmed
 * (docs/api.md#metadata-notes-and-tags).
 */
export function normalizeTags(tags: readonly string[], path: string): string[] {
  const names: string[] = [];
  tags.forEach((raw, index) => {
    const name = raw.trim();
    if (!name) {
      throw validationError(`Invalid request: ${path}[${index}] is empty once trimmed.`, [
        { path: `${path}[${index}]`, message: 'must not be empty once trimmed' },
      ]);
    }
    if (!names.includes(name)) names.push(name);
  });
  return names;
}

export const MAX_METADATA_KEYS = 50;
