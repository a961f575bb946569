import type { ResourceModuleWithLists } from '../../resource-kit/module.js';
import { reviewRoutes } from './routes.js';
import { Review } from '../../records/review.js';
import type { ExportSource } from '../../resource-kit/export-csv.js';
import { toReview } from '../../records/review.js';
import { reviewList } from './list.js';
import type { ImportSource } from '../../resource-kit/import-source.js';
import { importReviews } from './import.js';
import { ReviewImportBody } from './schemas.js';
import { reviewCascades } from './cascades.js';

/** Analytics: the list whose filter analytics queries take. */
export { reviewList } from './list.js';
/** Product questions: whether a deleted product's children are deleted rather than unlinked. */
export { cascadeDeleteReviews } from './cascades.js';

/** Export jobs: the reviews list (docs/api.md#export-jobs). */
export const reviewExport: ExportSource = {
  list: reviewList,
  record: Review,
  toRecord: toReview,
  permission: 'reviews:read',
};

/** Import jobs: the reviews import (docs/api.md#import-jobs). */
export const reviewImport: ImportSource = {
  permission: 'reviews:write',
  body: ReviewImportBody,
  record: Review,
  aliases: { productId: 'product', customerId: 'customer' },
  duplicateKey: (row) => (typeof row.remoteId === 'string' ? row.remoteId : undefined),
  run: (trx, organizationId, body) => importReviews(trx, organizationId, body as ReviewImportBody),
};

export const reviewsResource: ResourceModuleWithLists = {
  name: 'reviews',
  description: 'Product reviews: import, list, edit, publish, reply to, delete and bulk-update.',
  routes: reviewRoutes,
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [
    {
      names: ['review.created', 'review.updated', 'review.deleted'],
      schema: Review,
      firesWhen: {
        'review.created': 'A review arrives, published or not: each new review of POST /reviews/import.',
        'review.updated':
          'PATCH /reviews/{id}, each review that POST /reviews/import or PATCH /reviews/bulk-update changes, and each review DELETE /products/{id} unlinks and unpublishes.',
        'review.deleted':
          'DELETE /reviews/{id}, and each review of a customer DELETE /customers/{id} removes or of a product DELETE /products/{id} removes while cascadeDeleteReviews is on.',
      },
    },
    {
      names: ['review.replied', 'review.replyDeleted'],
      schema: Review,
      firesWhen: {
        'review.replied':
          'PUT /reviews/{id}/reply sets a first reply (reply.createdAt equals reply.updatedAt) or replaces its text (updatedAt later); a PUT of the text already stored sends nothing.',
        'review.replyDeleted': 'DELETE /reviews/{id}/reply; the review comes with reply null.',
      },
    },
  ],
  // Deleting a customer deletes their reviews; deleting a product unlinks or deletes its reviews.
  cascades: reviewCascades,
  // The list quick filters and export jobs take, and the import import jobs run, under the name clients use.
  lists: { reviews: reviewExport },
  imports: { reviews: reviewImport },
};
