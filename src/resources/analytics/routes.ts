import { authOf } from '../../http/auth.js';
import { QUICK_FILTER_MISSING } from '../quick-filters/index.js';
import type { PatronApp, PlatformServices } from '../../core/types.js';
import { AnalyticsQueryBody, AnalyticsResult, AnalyticsSchema } from './schemas.js';
import { AnalyticsService } from './service.js';

const tags = ['analytics'];

export function analyticsRoutes(app: PatronApp, { db }: PlatformServices): void {
  const analytics = new AnalyticsService(db);

  app.post(
    '/analytics/query',
    {
      config: {
        permission: 'analytics:read',
        cost: 5,
        refusals: {
          404: QUICK_FILTER_MISSING,
          422: "a row's sum (e.g. revenue) exceeds 2^53 - 1, which a JSON number cannot carry exactly",
        },
      },
      schema: {
        operationId: 'queryAnalytics',
        summary:
          'Aggregate one resource: measures by up to three dimensions, dates bucketed in a time zone, top combinations plus Other',
        tags,
        body: AnalyticsQueryBody,
        response: { 200: AnalyticsResult },
      },
    },
    async (request) => analytics.query(authOf(request).organizationId, request.body),
  );

  app.get(
    '/analytics/schema',
    {
      config: { permission: 'analytics:read', cost: 1 },
      schema: {
        operationId: 'getAnalyticsSchema',
        summary: 'Every aggregatable resource with its measures and dimensions and what each means',
        tags,
        response: { 200: AnalyticsSchema },
      },
    },
    async () => analytics.schema(),
  );
}
