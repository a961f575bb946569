import type { ResourceModule } from '../../core/types.js';
import { tagRoutes } from './routes.js';
import { Tag } from '../../records/tag.js';

export const tagsResource: ResourceModule = {
  name: 'tags',
  // Customer tags need the customers permissions; service.md names only the other two families.
  permissions: ['customers:read', 'customers:write'],
  description:
    'Tag records of products, orders and customers. Tags are created by tagging records; here they are listed, renamed and deleted.',
  routes: tagRoutes,
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [
    {
      names: [
        'customerTag.created',
        'customerTag.updated',
        'customerTag.deleted',
        'orderTag.created',
        'orderTag.updated',
        'orderTag.deleted',
        'productTag.created',
        'productTag.updated',
        'productTag.deleted',
      ],
      schema: Tag,
      firesWhen:
        'created: a write names a tag that does not exist yet (PATCH, import or bulk-update of customers, orders or products); updated: PATCH on the tag (a rename); deleted: DELETE on the tag.',
    },
  ],
};
