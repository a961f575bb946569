import Type, { type Static } from 'typebox';
import { MAX_SEARCH_LENGTH } from '../../lists/query.js';
import { requiredOnCreate } from '../../resource-kit/body.js';
import { ExportFormatValue, ExportResourceValue } from '../../records/export-job.js';

const fields = {
  resource: Type.Optional(ExportResourceValue),
  format: Type.Optional(ExportFormatValue),
  filter: Type.Optional(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          "A filter document of the resource's list as a JSON object (docs/api.md#filter-documents), checked against that list; default {} (everything).",
      },
    ),
  ),
  search: Type.Optional(
    Type.String({ minLength: 1, maxLength: MAX_SEARCH_LENGTH, description: "The list's search, 1..200 characters." }),
  ),
  quickFilter: Type.Optional(
    Type.String({
      format: 'uuid',
      description:
        'A quick filter of the same resource: its filter and search are ANDed with these, its sort applies when sort is omitted.',
    }),
  ),
  include: Type.Optional(
    Type.String({
      maxLength: 500,
      description: "Comma-separated extras of the resource's list, as the list takes them.",
    }),
  ),
  sort: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: "One of the list's sort values; default the list's." }),
  ),
};

export const ExportJobInput = Type.Object(fields, { additionalProperties: false });
export type ExportJobInput = Static<typeof ExportJobInput>;

const ExportJobCreateFields = Type.Object(
  { data: Type.Optional(ExportJobInput), ...fields },
  { additionalProperties: false, description: 'Send the fields inside data, or at the top level, not both.' },
);
export type ExportJobCreateBody = Static<typeof ExportJobCreateFields>;
/** What a new export must name. */
export const EXPORT_JOB_REQUIRED = ['resource', 'format'] as const;
export const ExportJobCreateBody = requiredOnCreate(ExportJobCreateFields, EXPORT_JOB_REQUIRED);
