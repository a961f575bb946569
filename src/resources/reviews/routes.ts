import Type from 'typebox';
import { QUICK_FILTER_MISSING, withQuickFilter } from '../quick-filters/index.js';
import type { FastifyRequest } from 'fastify';
import { authOf } from '../../http/auth.js';
import { callerActor } from '../../http/audit.js';
import type { PatronApp, PlatformServices } from '../../core/types.js';
import { includeSchema, listQuerySchema, selectionQuerySchema } from '../../lists/query.js';
import { listEnvelope } from '../../records/envelope.js';
import { Count } from '../../records/common.js';
import { reviewList } from './list.js';
import {
  ReviewBulkUpdateBody,
  ReviewImportBody,
  ReviewImportResult,
  ReviewParams,
  ReviewPatch,
  ReviewReplyBody,
} from './schemas.js';
import { ReviewService } from './service.js';
import type { ReplyAuthor } from './queries.js';
import { Review } from '../../records/review.js';

const tags = ['reviews'];

/** A reply's author: the caller as the audit log names them (docs/api.md#review-replies). */
function replyAuthor(request: FastifyRequest): ReplyAuthor {
  const { type, id, label } = callerActor(authOf(request));
  if (id === null || label === null) throw new Error('A reply needs a caller with an id and a label');
  return { type, id, label };
}

export function reviewRoutes(app: PatronApp, { db }: PlatformServices): void {
  const reviews = new ReviewService(db);
  const read = { permission: 'reviews:read', cost: 1 };
  const write = { permission: 'reviews:write', cost: 1 };
  const getQuery = Type.Object({ include: Type.Optional(includeSchema(reviewList)) }, { additionalProperties: false });

  app.get(
    '/reviews',
    {
      config: { ...read, refusals: { 404: QUICK_FILTER_MISSING } },
      schema: {
        operationId: 'listReviews',
        summary: 'List reviews, newest first by default',
        tags,
        querystring: listQuerySchema(reviewList, { quickFilter: true }),
        response: { 200: listEnvelope(Review) },
      },
    },
    async (request) => {
      const { organizationId } = authOf(request);
      return reviews.list(
        organizationId,
        await withQuickFilter(db, organizationId, request.query, { resource: 'reviews', list: reviewList }),
      );
    },
  );

  app.patch(
    '/reviews/bulk-update',
    {
      config: { permission: 'reviews:write', cost: 5, refusals: { 404: QUICK_FILTER_MISSING } },
      schema: {
        operationId: 'bulkUpdateReviews',
        summary:
          'Publish, unpublish, flag or unflag, and add or remove metadata on every review the filter and search select (all when omitted)',
        tags,
        querystring: selectionQuerySchema(reviewList, { quickFilter: true }),
        body: ReviewBulkUpdateBody,
        response: { 200: Count },
      },
    },
    async (request) => {
      const { organizationId } = authOf(request);
      const selection = await withQuickFilter(db, organizationId, request.query, {
        resource: 'reviews',
        list: reviewList,
      });
      return { count: await reviews.bulkUpdate(organizationId, selection, request.body) };
    },
  );

  app.post(
    '/reviews/import',
    {
      config: {
        permission: 'reviews:write',
        cost: 10,
        refusals: { 422: 'with strict true, a row names a product or customer that does not exist' },
      },
      schema: {
        operationId: 'importReviews',
        summary:
          'Create or update reviews by remoteId (else by customer and product); products and customers must exist',
        tags,
        body: ReviewImportBody,
        response: { 200: ReviewImportResult },
      },
    },
    async (request) => reviews.import(authOf(request).organizationId, request.body),
  );

  app.get(
    '/reviews/:id',
    {
      config: read,
      schema: {
        operationId: 'getReview',
        summary: 'One review',
        tags,
        params: ReviewParams,
        querystring: getQuery,
        response: { 200: Review },
      },
    },
    async (request) => reviews.get(authOf(request).organizationId, request.params.id, request.query.include),
  );

  app.patch(
    '/reviews/:id',
    {
      config: write,
      schema: {
        operationId: 'updateReview',
        summary: 'Publish or unpublish, flag or unflag, replace metadata; the text and rating come from the store',
        tags,
        params: ReviewParams,
        body: ReviewPatch,
        response: { 200: Review },
      },
    },
    async (request) => reviews.update(authOf(request).organizationId, request.params.id, request.body),
  );

  app.put(
    '/reviews/:id/reply',
    {
      config: write,
      schema: {
        operationId: 'setReviewReply',
        summary:
          "Reply to a review, or replace the reply's text; triggers review.replied and, with an active reviewReplied template, mails the reviewer",
        tags,
        params: ReviewParams,
        body: ReviewReplyBody,
        response: { 200: Review },
      },
    },
    async (request) =>
      reviews.setReply(
        authOf(request).organizationId,
        request.params.id,
        { body: request.body.body, author: replyAuthor(request) },
        request.log,
      ),
  );

  app.delete(
    '/reviews/:id/reply',
    {
      config: { ...write, refusals: { 404: 'the review has no reply' } },
      schema: {
        operationId: 'deleteReviewReply',
        summary: "Delete a review's reply; triggers review.replyDeleted",
        tags,
        params: ReviewParams,
        response: { 200: Review },
      },
    },
    async (request) => reviews.deleteReply(authOf(request).organizationId, request.params.id),
  );

  app.delete(
    '/reviews/:id',
    {
      config: write,
      schema: {
        operationId: 'deleteReview',
        summary: 'Delete a review',
        tags,
        params: ReviewParams,
        response: { 200: Review },
      },
    },
    async (request) => reviews.delete(authOf(request).organizationId, request.params.id),
  );
}
