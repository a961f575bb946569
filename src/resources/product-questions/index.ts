import type { ResourceModuleWithLists } from '../../resource-kit/module.js';
import { ProductQuestion, ProductQuestionAnswer } from '../../records/product-question.js';
import { productQuestionRoutes } from './routes.js';
import type { ExportSource } from '../../resource-kit/export-csv.js';
import { toProductQuestion } from '../../records/product-question.js';
import { productQuestionList } from './list.js';
import type { ImportSource } from '../../resource-kit/import-source.js';
import { importProductQuestions } from './import.js';
import { ProductQuestionImportBody } from './schemas.js';
import { productQuestionCascades } from './cascades.js';

/** Quick filters: the list whose filter they take. */
export { productQuestionList } from './list.js';

/** Export jobs: the product questions list, one CSV line per answer when include=answers (docs/api.md#export-jobs). */
export const productQuestionExport: ExportSource = {
  list: productQuestionList,
  record: ProductQuestion,
  toRecord: toProductQuestion,
  permission: 'reviews:read',
  csvLines: 'answers',
};

/** Import jobs: the product questions import, one CSV line per answer (docs/api.md#import-jobs). */
export const productQuestionImport: ImportSource = {
  permission: 'reviews:write',
  body: ProductQuestionImportBody,
  record: productQuestionExport.record,
  aliases: { productId: 'product', customerId: 'customer' },
  lines: { field: 'answers', key: ['remoteId', 'product', 'authorName', 'body'] },
  duplicateKey: (row) => (typeof row.remoteId === 'string' ? row.remoteId : undefined),
  run: (trx, organizationId, body) => importProductQuestions(trx, organizationId, body as ProductQuestionImportBody),
};

export const productQuestionsResource: ResourceModuleWithLists = {
  name: 'product-questions',
  description:
    'Product questions and answers: import them from the store, record and answer questions, moderate, delete.',
  routes: productQuestionRoutes,
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [
    {
      names: ['productQuestion.created', 'productQuestion.updated', 'productQuestion.deleted'],
      schema: ProductQuestion,
      firesWhen: {
        'productQuestion.created':
          'POST /product-questions (a question the merchant records), and each question POST /product-questions/import creates (asked by a shopper, published or not).',
        'productQuestion.updated':
          'PATCH /product-questions/{id} (published, rejected or edited), and each question that POST /product-questions/import or PATCH /product-questions/bulk-update changes, or DELETE /products/{id} unlinks.',
        'productQuestion.deleted':
          'DELETE /product-questions/{id}, each question of a customer DELETE /customers/{id} removes, and of a product DELETE /products/{id} removes while cascadeDeleteReviews is on; the data carries its answers, which send no events of their own.',
      },
    },
    {
      names: ['productQuestionAnswer.created', 'productQuestionAnswer.updated', 'productQuestionAnswer.deleted'],
      schema: ProductQuestionAnswer,
      firesWhen: {
        'productQuestionAnswer.created':
          'POST /product-questions/{id}/answers, and each answer POST /product-questions/import adds.',
        'productQuestionAnswer.updated':
          'PATCH /product-question-answers/{id} (edited, published or hidden), and each answer POST /product-questions/import changes.',
        'productQuestionAnswer.deleted':
          'DELETE /product-question-answers/{id}, and each answer POST /product-questions/import leaves out of a row that sends answers.',
      },
    },
  ],
  // Deleting a customer deletes their questions; deleting a product unlinks or deletes its questions.
  cascades: productQuestionCascades,
  // The list quick filters and export jobs take, and the import import jobs run, under the name clients use.
  lists: { 'product-questions': productQuestionExport },
  imports: { 'product-questions': productQuestionImport },
};
