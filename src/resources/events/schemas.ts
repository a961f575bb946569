import Type, { type Static } from 'typebox';
import { listQuerySchema } from '../../lists/query.js';
import { eventList } from './list.js';

/** The createdAt bounds, Stripe-style (`createdAt[gte]=…`): each is ANDed with the others and with `filter`. */
export const CREATED_AT_BOUNDS = {
  'createdAt[gte]': '$gte',
  'createdAt[gt]': '$gt',
  'createdAt[lte]': '$lte',
  'createdAt[lt]': '$lt',
} as const;

const bound = (words: string) =>
  Type.Optional(Type.String({ format: 'date-time', description: `Events created ${words} this time.` }));

/** The common list parameters, and the events' own filters (docs/api.md#events-api). */
export const EventListQuery = Type.Object(
  {
    ...listQuerySchema(eventList).properties,
    type: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'An event type (order.updated), or a prefix ending in .* (order.*): the types of the catalog it names. An unknown type or prefix is 400.',
        examples: ['order.*'],
      }),
    ),
    objectId: Type.Optional(
      Type.String({ format: 'uuid', description: 'Events about this record (the id of the changed record, data.id).' }),
    ),
    'createdAt[gte]': bound('at or after'),
    'createdAt[gt]': bound('after'),
    'createdAt[lte]': bound('at or before'),
    'createdAt[lt]': bound('before'),
  },
  { additionalProperties: false },
);
export type EventListQuery = Static<typeof EventListQuery>;
