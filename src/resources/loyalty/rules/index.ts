import type { ResourceModule } from '../../../core/types.js';
import { ruleRoutes } from './routes.js';
import { LoyaltyRule } from '../../../records/loyalty/rule.js';

export const loyaltyRulesResource: ResourceModule = {
  name: 'loyalty-rules',
  description: "Loyalty rules in service.md's sections: rules (earning), rewards (claimable), offers, stampCards.",
  routes: ruleRoutes,
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [
    {
      names: ['loyaltyRule.created', 'loyaltyRule.updated', 'loyaltyRule.deleted'],
      schema: LoyaltyRule,
      firesWhen: 'POST, PATCH and DELETE on /loyalty-rules.',
    },
  ],
};
