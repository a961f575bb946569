import type { ResourceModule } from '../../core/types.js';
import { dashboardRoutes } from './routes.js';

/** The dashboard's own endpoints: sign-in, the session, users and secret keys (docs/api.md#dashboard-sessions). */
export const dashboardResource: ResourceModule = {
  name: 'dashboard',
  description:
    'Signing in to the dashboard and what only a signed-in session may do: manage users (owners) and secret keys ' +
    '(owners and admins). These endpoints answer a session cookie, never a secret key.',
  routes: dashboardRoutes,
  examples: {
    requestPasswordReset: {
      summary: 'Forgot password: mail the demo owner a one-time sign-in link',
      body: { email: 'owner@demo.example' },
    },
  },
};
