import type { Migration, MigrationProvider } from 'kysely';
import * as platform from './0001_platform.js';
import * as store from './0002_store.js';
import * as customerSortIndexes from './0003_customer_sort_indexes.js';
import * as listIndexes from './0004_list_indexes.js';
import * as webhooks from './0005_webhooks.js';
import * as customerSearch from './0006_customer_search.js';
import * as webhookDispatch from './0007_webhook_dispatch.js';
import * as loyalty from './0009_loyalty.js';
import * as webhookDispatchSpeed from './0011_webhook_dispatch_speed.js';
import * as reviews from './0012_reviews.js';
import * as reviewSummaries from './0013_review_summaries.js';
import * as analytics from './0014_analytics.js';
import * as reviewSummarySources from './0015_review_summary_sources.js';
import * as logTablesWithoutOrganizationFk from './0016_log_tables_without_organization_fk.js';
import * as loyaltyUpdateRoom from './0017_loyalty_update_room.js';
import * as eventsWithoutUnreadIndexes from './0018_events_without_unread_indexes.js';
import * as pendingReferrals from './0019_pending_referrals.js';
import * as deliverySendingMarks from './0020_delivery_sending_marks.js';
import * as retention from './0021_retention.js';
import * as serverProcesses from './0022_server_processes.js';
import * as webhookSecretRotation from './0023_webhook_secret_rotation.js';
import * as deliveryEventBrin from './0024_delivery_event_brin.js';
import * as memberActivityFeed from './0025_member_activity_feed.js';
import * as quickFilters from './0026_quick_filters.js';
import * as wishlists from './0027_wishlists.js';
import * as productQuestions from './0028_product_questions.js';
import * as bulkJobs from './0029_bulk_jobs.js';
import * as importJobs from './0030_import_jobs.js';
import * as productWishlistCounts from './0031_product_wishlist_counts.js';
import * as dashboardAccounts from './0032_dashboard_accounts.js';
import * as emailTemplates from './0033_email_templates.js';
import * as mail from './0034_mail.js';
import * as surveys from './0035_surveys.js';

/** Migrations are listed in code (not read from a folder) so the same set runs from src under tsx and from dist. */
const migrations: Record<string, Migration> = {
  '0001_platform': platform,
  '0002_store': store,
  '0003_customer_sort_indexes': customerSortIndexes,
  '0004_list_indexes': listIndexes,
  '0005_webhooks': webhooks,
  '0006_customer_search': customerSearch,
  '0007_webhook_dispatch': webhookDispatch,
  '0009_loyalty': loyalty,
  '0011_webhook_dispatch_speed': webhookDispatchSpeed,
  '0012_reviews': reviews,
  '0013_review_summaries': reviewSummaries,
  '0014_analytics': analytics,
  '0015_review_summary_sources': reviewSummarySources,
  '0016_log_tables_without_organization_fk': logTablesWithoutOrganizationFk,
  '0017_loyalty_update_room': loyaltyUpdateRoom,
  '0018_events_without_unread_indexes': eventsWithoutUnreadIndexes,
  '0019_pending_referrals': pendingReferrals,
  '0020_delivery_sending_marks': deliverySendingMarks,
  '0021_retention': retention,
  '0022_server_processes': serverProcesses,
  '0023_webhook_secret_rotation': webhookSecretRotation,
  '0024_delivery_event_brin': deliveryEventBrin,
  '0025_member_activity_feed': memberActivityFeed,
  '0026_quick_filters': quickFilters,
  '0027_wishlists': wishlists,
  '0028_product_questions': productQuestions,
  '0029_bulk_jobs': bulkJobs,
  '0030_import_jobs': importJobs,
  '0031_product_wishlist_counts': productWishlistCounts,
  '0032_dashboard_accounts': dashboardAccounts,
  '0033_email_templates': emailTemplates,
  '0034_mail': mail,
  '0035_surveys': surveys,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
