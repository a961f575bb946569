/**
 * The loyalty domain's surface: its API modules (one per OpenAPI tag, in the order the API document lists them) and
 * the few operations other domains call. Everything else in src/resources/loyalty is the domain's own.
 */
import type { ResourceModuleWithLists } from '../../resource-kit/module.js';
import { loyaltyPointsResource } from './activity/index.js';
import { loyaltyEarningResource } from './events/index.js';
import { loyaltyMembershipsResource } from './memberships/index.js';
import { loyaltyProgramsResource } from './programs/index.js';
import { loyaltyRewardsResource } from './rewards/index.js';
import { loyaltyRulesResource } from './rules/index.js';
import { loyaltyTiersResource } from './tiers/index.js';
import type { ExportSource } from '../../resource-kit/export-csv.js';
import { LoyaltyReward, toReward } from '../../records/loyalty/reward.js';
import { toMembership } from '../../records/loyalty/membership.js';
import { toTransaction } from '../../records/loyalty/transaction.js';
import { TransactionWithExtras } from './activity/routes.js';
import { MembershipWithExtras } from './memberships/routes.js';
import { activityList } from './activity/list.js';
import { membershipList } from './memberships/list.js';
import { rewardList } from './engine/rewards/list.js';
import type { ImportSource } from '../../resource-kit/import-source.js';
import { importMemberships } from './memberships/import.js';
import { MembershipImportBody } from './memberships/schemas.js';
import { withFreshReferralCodes } from './memberships/queries.js';
import { importHistory } from './engine/history.js';
import { LoyaltyHistoryBody } from './engine/schemas.js';

/** Organizations: every organization starts with one program. */
export { insertDefaultProgram } from './programs/defaults.js';
/** Orders: newly imported orders earn points and stamps; discount codes on them redeem rewards. */
export { earnFromOrders } from './engine/earning/earn-orders.js';
export { redeemOrderCodes } from './engine/rewards/order-codes.js';
/** Analytics: the lists whose filters analytics queries take. */
export { activityList } from './activity/list.js';
export { membershipList } from './memberships/list.js';
export { rewardList } from './engine/rewards/list.js';

/** Export jobs: the loyalty lists, each as its endpoint answers it (docs/api.md#export-jobs). */
export const rewardExport: ExportSource = {
  list: rewardList,
  record: LoyaltyReward,
  toRecord: toReward,
  permission: 'loyalty:read',
};
export const membershipExport: ExportSource = {
  list: membershipList,
  record: MembershipWithExtras,
  toRecord: toMembership,
  permission: 'loyalty:read',
};
export const activityExport: ExportSource = {
  list: activityList,
  record: TransactionWithExtras,
  toRecord: toTransaction,
  permission: 'loyalty:read',
};

/** Import jobs: the memberships import and the points history import (docs/api.md#import-jobs). */
export const membershipImport: ImportSource = {
  permission: 'loyalty:write',
  body: MembershipImportBody,
  record: MembershipWithExtras,
  aliases: { customerId: 'customer' },
  duplicateKey: (row) =>
    typeof row.customer === 'string'
      ? `${row.customer.toLowerCase()} ${String(row.loyaltyProgramId ?? '')}`
      : undefined,
  run: (trx, organizationId, body) => importMemberships(trx, organizationId, body as MembershipImportBody),
  around: withFreshReferralCodes,
};
export const historyImport: ImportSource = {
  permission: 'loyalty:write',
  body: LoyaltyHistoryBody,
  record: TransactionWithExtras,
  run: (trx, organizationId, body) => importHistory(trx, organizationId, body as LoyaltyHistoryBody),
};

/**
 * The loyalty API modules, each with the lists quick filters and export jobs take and the imports import jobs run,
 * under the names clients use.
 */
export const loyaltyResources: readonly ResourceModuleWithLists[] = [
  { ...loyaltyRewardsResource, lists: { 'loyalty-rewards': rewardExport } },
  loyaltyProgramsResource,
  loyaltyTiersResource,
  loyaltyRulesResource,
  {
    ...loyaltyMembershipsResource,
    lists: { 'loyalty-memberships': membershipExport },
    imports: { 'loyalty-memberships': membershipImport },
  },
  { ...loyaltyPointsResource, lists: { 'loyalty-activity': activityExport } },
  { ...loyaltyEarningResource, imports: { 'loyalty-history': historyImport } },
];
