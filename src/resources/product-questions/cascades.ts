/** What product questions hold under customers and products (docs/architecture.md#declared-cascades). */
import type { CascadeEdge } from '../../core/cascades.js';
import { CUSTOMER, PRODUCT } from '../../resource-kit/cascade-parents.js';
import { cascadeDeleteReviews } from '../reviews/index.js';
import { deleteQuestionsOfCustomer, detachQuestionsOfProduct } from './service.js';

export const productQuestionCascades: readonly CascadeEdge[] = [
  {
    // The questions a deleted customer asked go, with their answers (docs/api.md#product-questions-and-answers).
    parent: CUSTOMER,
    references: [{ table: 'product_questions', column: 'customer_id' }],
    action: 'delete',
    order: 30,
    run: async (trx, organizationId, customerId) => ({
      events: await deleteQuestionsOfCustomer(trx, organizationId, customerId),
    }),
  },
  {
    // A deleted product's questions are unlinked like its reviews, or deleted with them
    // (docs/api.md#product-questions-and-answers).
    parent: PRODUCT,
    references: [{ table: 'product_questions', column: 'product_id' }],
    action: 'delete-or-detach',
    order: 20,
    run: async (trx, organizationId, productId) => ({
      events: await detachQuestionsOfProduct(
        trx,
        organizationId,
        productId,
        await cascadeDeleteReviews(trx, organizationId),
      ),
    }),
  },
];
