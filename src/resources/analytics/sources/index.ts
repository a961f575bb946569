import type { AnalyticsSource } from '../types.js';
import { customersSource } from './customers.js';
import { loyaltyActivitySource, loyaltyMembersSource, loyaltyRewardsSource } from './loyalty.js';
import { ordersSource } from './orders.js';
import { productsSource } from './products.js';
import { reviewAnswersSource, reviewsSource } from './reviews.js';

/** The eight aggregatable resources of service.md, in its order. */
export const SOURCES: readonly AnalyticsSource[] = [
  reviewsSource,
  reviewAnswersSource,
  ordersSource,
  customersSource,
  productsSource,
  loyaltyMembersSource,
  loyaltyActivitySource,
  loyaltyRewardsSource,
];

export const sourceOf = (resource: string): AnalyticsSource | undefined =>
  SOURCES.find((source) => source.resource === resource);
