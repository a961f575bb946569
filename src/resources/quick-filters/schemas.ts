import Type, { type Static } from 'typebox';
import { MAX_SEARCH_LENGTH } from '../../lists/query.js';
import { requiredOnCreate } from '../../resource-kit/body.js';
import { QuickFilterResourceValue } from '../../records/quick-filter.js';

const Name = Type.String({ minLength: 1, maxLength: 200, description: 'What the view is called, 1..200 characters.' });
const Filter = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      "A filter document of the resource's list, as a JSON object (docs/api.md#filter-documents), checked against that list when saved; default {} (everything).",
  },
);
const Search = Type.Union([Type.String({ minLength: 1, maxLength: MAX_SEARCH_LENGTH }), Type.Null()], {
  description: "The list's search (1..200 characters), or null for none.",
});
const Sort = Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], {
  description: "One of the list's sort values (e.g. -createdAt), used when a request names no sort; null for none.",
});

const patchFields = {
  name: Type.Optional(Name),
  filter: Type.Optional(Filter),
  search: Type.Optional(Search),
  sort: Type.Optional(Sort),
};
const createFields = { resource: Type.Optional(QuickFilterResourceValue), ...patchFields };

/** The fields a PATCH sets: everything but the resource, which a quick filter keeps for life. */
export const QuickFilterPatchInput = Type.Object(patchFields, { additionalProperties: false });
export type QuickFilterPatchInput = Static<typeof QuickFilterPatchInput>;
export const QuickFilterCreateInput = Type.Object(createFields, { additionalProperties: false });
export type QuickFilterCreateInput = Static<typeof QuickFilterCreateInput>;

/**
 * POST and PATCH bodies: the fields inside `data` (the reference form) or at the top level (the unwrapped form);
 * both at once is 400 (docs/api.md#wrapped-and-unwrapped-bodies).
 */
export const QuickFilterPatchBody = Type.Object(
  { data: Type.Optional(QuickFilterPatchInput), ...patchFields },
  { additionalProperties: false, description: 'Send the fields inside data, or at the top level, not both.' },
);
export type QuickFilterPatchBody = Static<typeof QuickFilterPatchBody>;

const QuickFilterCreateFields = Type.Object(
  { data: Type.Optional(QuickFilterCreateInput), ...createFields },
  { additionalProperties: false, description: 'Send the fields inside data, or at the top level, not both.' },
);
export type QuickFilterCreateBody = Static<typeof QuickFilterCreateFields>;
/** What a new quick filter must name (filter defaults to {}, search and sort to null). */
export const QUICK_FILTER_REQUIRED = ['resource', 'name'] as const;
export const QuickFilterCreateBody = requiredOnCreate(QuickFilterCreateFields, QUICK_FILTER_REQUIRED);
