import { authOf } from '../../http/auth.js';
import { optionalBody } from '../../http/optional-body.js';
import type { PatronApp, PlatformServices } from '../../core/types.js';
import { IdParams } from '../../records/common.js';
import { NoBody, RegenerateResult, ReviewSummary, ReviewSummaryOrNull, SuppressBody } from './schemas.js';
import { ReviewSummaryService } from './service.js';

const tags = ['review-summaries'];

export function reviewSummaryRoutes(app: PatronApp, { db }: PlatformServices): void {
  const summaries = new ReviewSummaryService(db);
  const read = { permission: 'reviews:read', cost: 1 };
  const write = { permission: 'reviews:write', cost: 1 };
  // The actions take no input: only an object with fields, or JSON null, is refused (400).

  app.get(
    '/products/:id/review-summary',
    {
      config: read,
      schema: {
        operationId: 'getReviewSummary',
        summary:
          "The product's generated review summary (also when hidden: suppressedAt is set), or null until it has reviewSummaryMinReviews published reviews",
        tags,
        params: IdParams,
        response: { 200: ReviewSummaryOrNull },
      },
    },
    async (request) => summaries.get(authOf(request).organizationId, request.params.id),
  );

  app.patch(
    '/products/:id/review-summary',
    {
      config: write,
      schema: {
        operationId: 'updateReviewSummary',
        summary:
          'Hide the summary from the storefront (suppressed: true; automatic refreshes then leave it alone) or show it again',
        tags,
        params: IdParams,
        body: SuppressBody,
        response: { 200: ReviewSummary },
      },
    },
    async (request) =>
      summaries.setSuppressed(authOf(request).organizationId, request.params.id, request.body.suppressed),
  );

  app.post(
    '/products/:id/review-summary/regenerate',
    {
      config: { permission: 'reviews:write', cost: 5 },
      preValidation: optionalBody,
      schema: {
        operationId: 'regenerateReviewSummary',
        summary:
          'Queue a new summary (once per 24 hours per product, else 429 with Retry-After); it goes live when written and the replaced one becomes previous',
        tags,
        params: IdParams,
        body: NoBody,
        response: { 202: RegenerateResult },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await summaries.regenerate(authOf(request).organizationId, request.params.id)),
  );

  app.post(
    '/products/:id/review-summary/accept',
    {
      config: write,
      preValidation: optionalBody,
      schema: {
        operationId: 'acceptReviewSummary',
        summary: 'Keep the current summary and forget previous, so nothing remains to revert to',
        tags,
        params: IdParams,
        body: NoBody,
        response: { 200: ReviewSummary },
      },
    },
    async (request) => summaries.accept(authOf(request).organizationId, request.params.id),
  );

  app.post(
    '/products/:id/review-summary/revert',
    {
      config: write,
      preValidation: optionalBody,
      schema: {
        operationId: 'revertReviewSummary',
        summary:
          'Make previous the current summary again and discard the one that replaced it (409 when there is nothing to revert to)',
        tags,
        params: IdParams,
        body: NoBody,
        response: { 200: ReviewSummary },
      },
    },
    async (request) => summaries.revert(authOf(request).organizationId, request.params.id),
  );
}
