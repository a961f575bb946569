import type { ResourceModule } from '../../../http/types.js';
import { overnightJob } from '../engine/overnight/overnight.js';
import { programRoutes } from './routes.js';

export const loyaltyProgramsResource: ResourceModule = {
  name: 'loyalty-programs',
  description:
    'Loyalty programs (D31, D34): points name and expiry, default reward expiry, tier window. Every organization starts with one.',
  routes: programRoutes,
  // The overnight run follows each program's settings: points and reward expiry, expiring-soon notices, tier windows.
  jobs: () => [overnightJob],
};
