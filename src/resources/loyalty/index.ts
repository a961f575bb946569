/**
 * The loyalty domain's surface: its API modules (one per OpenAPI tag, in the order the API document lists them) and
 * the few operations other domains call. Everything else in src/resources/loyalty is the domain's own.
 */
import type { ResourceModule } from '../../http/types.js';
import { loyaltyPointsResource } from './activity/index.js';
import { loyaltyEarningResource } from './events/index.js';
import { loyaltyMembershipsResource } from './memberships/index.js';
import { loyaltyProgramsResource } from './programs/index.js';
import { loyaltyRewardsResource } from './rewards/index.js';
import { loyaltyRulesResource } from './rules/index.js';
import { loyaltyTiersResource } from './tiers/index.js';

export const loyaltyResources: readonly ResourceModule[] = [
  loyaltyRewardsResource,
  loyaltyProgramsResource,
  loyaltyTiersResource,
  loyaltyRulesResource,
  loyaltyMembershipsResource,
  loyaltyPointsResource,
  loyaltyEarningResource,
];

/** Organizations: every organization starts with one program. */
export { insertDefaultProgram } from './programs/defaults.js';
/** Orders: newly imported orders earn points and stamps; discount codes on them redeem rewards. */
export { earnFromOrders } from './engine/earning/earn-orders.js';
export { redeemOrderCodes } from './engine/rewards/order-codes.js';
/** Customers: deleting a customer deletes their memberships. */
export { membershipsOfCustomer } from './memberships/queries.js';
/** Analytics: the lists whose filters analytics queries take. */
export { activityList } from './activity/list.js';
export { membershipList } from './memberships/list.js';
export { rewardList } from './rewards/list.js';
