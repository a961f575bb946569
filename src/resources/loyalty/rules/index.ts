import type { ResourceModule } from '../../../http/types.js';
import { ruleRoutes } from './routes.js';

export const loyaltyRulesResource: ResourceModule = {
  name: 'loyalty-rules',
  description:
    "Loyalty rules (D31) in service.md's sections: rules (earning), rewards (claimable), offers, stampCards.",
  routes: ruleRoutes,
};
