import Type from 'typebox';
import { authOf } from '../../http/auth.js';
import type { PatronApp, PlatformServices } from '../../core/types.js';
import { includeSchema, listQuerySchema, selectionQuerySchema } from '../../lists/query.js';
import { checkCreateBody } from '../../resource-kit/body.js';
import { Count } from '../../records/common.js';
import { listEnvelope } from '../../records/envelope.js';
import { ProductQuestion, ProductQuestionAnswer } from '../../records/product-question.js';
import { QUICK_FILTER_MISSING, withQuickFilter } from '../quick-filters/index.js';
import { productQuestionList } from './list.js';
import {
  PRODUCT_QUESTION_ANSWER_REQUIRED,
  PRODUCT_QUESTION_REQUIRED,
  ProductQuestionAnswerCreateBody,
  ProductQuestionAnswerPatch,
  DeletedProductQuestion,
  ProductQuestionBulkUpdateBody,
  ProductQuestionCreateBody,
  ProductQuestionImportBody,
  ProductQuestionImportResult,
  ProductQuestionParams,
  ProductQuestionPatch,
} from './schemas.js';
import { ProductQuestionService } from './service.js';

const tags = ['product-questions'];

export function productQuestionRoutes(app: PatronApp, { db }: PlatformServices): void {
  const questions = new ProductQuestionService(db);
  const read = { permission: 'reviews:read', cost: 1 };
  const write = { permission: 'reviews:write', cost: 1 };
  const getQuery = Type.Object(
    { include: Type.Optional(includeSchema(productQuestionList)) },
    { additionalProperties: false },
  );

  app.get(
    '/product-questions',
    {
      config: { ...read, refusals: { 404: QUICK_FILTER_MISSING } },
      schema: {
        operationId: 'listProductQuestions',
        summary: 'List product questions, newest first by default',
        tags,
        querystring: listQuerySchema(productQuestionList, { quickFilter: true }),
        response: { 200: listEnvelope(ProductQuestion) },
      },
    },
    async (request) => {
      const { organizationId } = authOf(request);
      return questions.list(
        organizationId,
        await withQuickFilter(db, organizationId, request.query, {
          resource: 'product-questions',
          list: productQuestionList,
        }),
      );
    },
  );

  app.post(
    '/product-questions',
    {
      config: {
        ...write,
        checkBody: checkCreateBody(PRODUCT_QUESTION_REQUIRED, 'product question'),
        refusals: { 422: 'the product or the customer does not exist' },
      },
      schema: {
        operationId: 'createProductQuestion',
        summary:
          'Record a question the merchant received (source merchant, published unless status says otherwise); triggers productQuestion.created',
        tags,
        body: ProductQuestionCreateBody,
        response: { 201: ProductQuestion },
      },
    },
    async (request, reply) => {
      const question = await questions.create(authOf(request).organizationId, request.body);
      return reply.code(201).send(question);
    },
  );

  app.patch(
    '/product-questions/bulk-update',
    {
      config: { permission: 'reviews:write', cost: 5, refusals: { 404: QUICK_FILTER_MISSING } },
      schema: {
        operationId: 'bulkUpdateProductQuestions',
        summary:
          'Publish, reject or send back to pending, and add or remove metadata on every question the filter, search and quick filter select (all when omitted)',
        tags,
        querystring: selectionQuerySchema(productQuestionList, { quickFilter: true }),
        body: ProductQuestionBulkUpdateBody,
        response: { 200: Count },
      },
    },
    async (request) => {
      const { organizationId } = authOf(request);
      const selection = await withQuickFilter(db, organizationId, request.query, {
        resource: 'product-questions',
        list: productQuestionList,
      });
      return { count: await questions.bulkUpdate(organizationId, selection, request.body) };
    },
  );

  app.post(
    '/product-questions/import',
    {
      config: {
        permission: 'reviews:write',
        cost: 10,
        refusals: { 422: 'with strict true, a row names a product or customer that does not exist' },
      },
      schema: {
        operationId: 'importProductQuestions',
        summary:
          'Create or update questions (and their answers) by remoteId, else by product, author and text; products must exist',
        tags,
        body: ProductQuestionImportBody,
        response: { 200: ProductQuestionImportResult },
      },
    },
    async (request) => questions.import(authOf(request).organizationId, request.body),
  );

  app.get(
    '/product-questions/:id',
    {
      config: read,
      schema: {
        operationId: 'getProductQuestion',
        summary: 'One product question',
        tags,
        params: ProductQuestionParams,
        querystring: getQuery,
        response: { 200: ProductQuestion },
      },
    },
    async (request) => questions.get(authOf(request).organizationId, request.params.id, request.query.include),
  );

  app.patch(
    '/product-questions/:id',
    {
      config: write,
      schema: {
        operationId: 'updateProductQuestion',
        summary: 'Publish or reject a question, edit its text, replace its metadata; triggers productQuestion.updated',
        tags,
        params: ProductQuestionParams,
        body: ProductQuestionPatch,
        response: { 200: ProductQuestion },
      },
    },
    async (request) => questions.update(authOf(request).organizationId, request.params.id, request.body),
  );

  app.delete(
    '/product-questions/:id',
    {
      config: write,
      schema: {
        operationId: 'deleteProductQuestion',
        summary: 'Delete a question with its answers; answers the question with them, as its event carries them',
        tags,
        params: ProductQuestionParams,
        response: { 200: DeletedProductQuestion },
      },
    },
    async (request) => questions.delete(authOf(request).organizationId, request.params.id),
  );

  app.post(
    '/product-questions/:id/answers',
    {
      config: { ...write, checkBody: checkCreateBody(PRODUCT_QUESTION_ANSWER_REQUIRED, 'answer') },
      schema: {
        operationId: 'createProductQuestionAnswer',
        summary:
          "Answer a question (the merchant's answer, published, unless the body says otherwise); triggers productQuestionAnswer.created",
        tags,
        params: ProductQuestionParams,
        body: ProductQuestionAnswerCreateBody,
        response: { 201: ProductQuestionAnswer },
      },
    },
    async (request, reply) => {
      const answer = await questions.createAnswer(authOf(request).organizationId, request.params.id, request.body);
      return reply.code(201).send(answer);
    },
  );

  app.patch(
    '/product-question-answers/:id',
    {
      config: write,
      schema: {
        operationId: 'updateProductQuestionAnswer',
        summary: 'Edit, publish or hide an answer; triggers productQuestionAnswer.updated',
        tags,
        params: ProductQuestionParams,
        body: ProductQuestionAnswerPatch,
        response: { 200: ProductQuestionAnswer },
      },
    },
    async (request) => questions.updateAnswer(authOf(request).organizationId, request.params.id, request.body),
  );

  app.delete(
    '/product-question-answers/:id',
    {
      config: write,
      schema: {
        operationId: 'deleteProductQuestionAnswer',
        summary: 'Delete an answer; triggers productQuestionAnswer.deleted',
        tags,
        params: ProductQuestionParams,
        response: { 200: ProductQuestionAnswer },
      },
    },
    async (request) => questions.deleteAnswer(authOf(request).organizationId, request.params.id),
  );
}
