import type { ResourceModule } from '../../../core/types.js';
import { overnightJob } from '../engine/overnight/overnight.js';
import { programRoutes } from './routes.js';
import { LoyaltyProgram } from '../../../records/loyalty/program.js';

export const loyaltyProgramsResource: ResourceModule = {
  name: 'loyalty-programs',
  description:
    'Loyalty programs: points name and expiry, default reward expiry, tier window. Every organization starts with one.',
  routes: programRoutes,
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [
    {
      names: ['loyaltyProgram.created', 'loyaltyProgram.updated', 'loyaltyProgram.deleted'],
      schema: LoyaltyProgram,
      firesWhen: 'POST, PATCH and DELETE on /loyalty-programs.',
    },
  ],
  // The overnight run follows each program's settings: points and reward expiry, expiring-soon notices, tier windows.
  jobs: () => [overnightJob],
};
