import Type, { type Static } from 'typebox';
import { ImportResourceValue } from '../../records/import-job.js';

const Option = (description: string) =>
  Type.Optional(Type.Boolean({ description: `${description} Only for resources whose import takes it.` }));

/** POST /import-jobs: the resource and the synchronous import's options; the file is the body. */
export const ImportJobQuery = Type.Object(
  {
    resource: ImportResourceValue,
    strict: Option('Fail the job at the first row that cannot be imported (rows of earlier batches stay written).'),
    mergeMetadata: Option("Merge each row's metadata into the stored metadata instead of replacing it."),
    earnLoyalty: Option('Orders: newly created orders earn points and stamps (default true).'),
  },
  { additionalProperties: false },
);
export type ImportJobQuery = Static<typeof ImportJobQuery>;
