import Type, { type TSchema } from 'typebox';

/** service.md List envelope: { data, nextCursor }, nextCursor null after the last page. */
export const listEnvelope = <T extends TSchema>(record: T) =>
  Type.Object({
    data: Type.Array(record),
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as cursor for the next page; null on the last.',
    }),
  });
