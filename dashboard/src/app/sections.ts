import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

export interface Section {
  /** The URL segment under /dashboard/. */
  path: string;
  /** The navigation label and the page's heading. */
  label: string;
  /** The page, loaded when first opened (each page is its own chunk). */
  Page: LazyExoticComponent<ComponentType>;
  /** Shown in the navigation only to sessions holding this permission. */
  permission?: string;
}

/** The navigation, in order. A page goes in pages/<path>/ and is added here (docs/dashboard.md#adding-a-page). */
export const SECTIONS: readonly Section[] = [
  { path: 'overview', label: 'Overview', Page: lazy(() => import('../pages/overview/OverviewPage')) },
  { path: 'customers', label: 'Customers', Page: lazy(() => import('../pages/customers/CustomersPage')) },
  { path: 'loyalty', label: 'Loyalty', Page: lazy(() => import('../pages/loyalty/LoyaltyPage')) },
  { path: 'reviews', label: 'Reviews', Page: lazy(() => import('../pages/reviews/ReviewsPage')) },
  { path: 'mail', label: 'Mail', Page: lazy(() => import('../pages/mail/MailPage')) },
  { path: 'store', label: 'Store data', Page: lazy(() => import('../pages/store/StorePage')) },
  { path: 'webhooks', label: 'Webhooks', Page: lazy(() => import('../pages/webhooks/WebhooksPage')) },
  {
    path: 'imports-exports',
    label: 'Imports & exports',
    Page: lazy(() => import('../pages/imports-exports/ImportsExportsPage')),
  },
  {
    path: 'activity',
    label: 'Activity log',
    Page: lazy(() => import('../pages/activity/ActivityPage')),
    permission: 'auditLog:read',
  },
  { path: 'settings', label: 'Settings', Page: lazy(() => import('../pages/settings/SettingsPage')) },
];
