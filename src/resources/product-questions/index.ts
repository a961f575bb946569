import type { ResourceModule } from '../../http/types.js';
import { ProductQuestion, ProductQuestionAnswer } from '../../records/product-question.js';
import { productQuestionRoutes } from './routes.js';
import type { ExportSource } from '../../resource-kit/export-csv.js';
import { toProductQuestion } from '../../records/product-question.js';
import { productQuestionList } from './list.js';

export const productQuestionsResource: ResourceModule = {
  name: 'product-questions',
  description:
    'Product questions and answers: import them from the store, record and answer questions, moderate, delete.',
  routes: productQuestionRoutes,
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [
    {
      names: ['productQuestion.created', 'productQuestion.updated', 'productQuestion.deleted'],
      schema: ProductQuestion,
    },
    {
      names: ['productQuestionAnswer.created', 'productQuestionAnswer.updated', 'productQuestionAnswer.deleted'],
      schema: ProductQuestionAnswer,
    },
  ],
};

/** Quick filters: the list whose filter they take. */
export { productQuestionList } from './list.js';
/** Products and customers: what deleting them does to questions (docs/api.md#product-questions-and-answers). */
export { deleteQuestionsOfCustomer, detachQuestionsOfProduct } from './service.js';

/** Export jobs: the product questions list, one CSV line per answer when include=answers (docs/api.md#export-jobs). */
export const productQuestionExport: ExportSource = {
  list: productQuestionList,
  record: ProductQuestion,
  toRecord: toProductQuestion,
  permission: 'reviews:read',
  csvLines: 'answers',
};
