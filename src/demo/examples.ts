import type { OperationExample } from '../core/types.js';
import { DEMO, DEMO_REDEEMABLE_CODE } from './ids.js';
import { DEMO_IMPORT_CSV, DEMO_RECEIVER_URL } from './world.js';

const { customers, products, variants, orders, webhooks, programs, tiers, rules, memberships, rewards } = DEMO;
const filter = (document: object) => JSON.stringify(document);

/**
 * The demo owner's password, which the sign-in example sends: the demo seed gives it (docs/api.md#the-first-start) and
 * the start prints it, so the example works on a fresh quick start. Public by design: a demo organization is for
 * trying Patron on one's own machine.
 */
export const DEMO_OWNER_PASSWORD = 'correct horse battery staple';

/**
 * Every operation's documented example, by operationId (docs/api.md#documented-examples-and-the-demo-world). Each names records of the
 * demo world (src/demo/world.ts) and answers its success status there, once, in any order: what changes a record for
 * good (a delete, a leave, a revoke, a redeem) has a record of its own. test/contract/examples.test.ts sends every one.
 * A resource's examples may instead live on its module (`examples`, as sites' do), taking the demo world's ids from
 * ./ids.ts; the composition root merges both.
 */
export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExample>> = {
  getOrganization: { summary: "The key's organization" },
  resetTestData: { summary: 'Delete every record of the test data', testMode: true },
  updateOrganization: {
    // Sets a value rather than toggling one, so a second click answers the same record (and writes nothing).
    summary: 'Warn two weeks before points and rewards expire',
    body: { data: { settings: { expiringSoonDays: 14 } } },
  },

  // The dashboard's endpoints (docs/api.md#dashboard-sessions), sent as the demo owner's session.
  createSession: {
    summary: 'Sign in as the demo owner',
    body: { email: 'owner@demo.example', password: DEMO_OWNER_PASSWORD },
  },
  getSession: { summary: 'The signed-in session and its CSRF token' },
  updateSession: { summary: 'Switch the session to test data', body: { testMode: true } },
  deleteSession: { summary: 'Sign out' },
  changeSessionPassword: {
    summary: 'Choose a new password',
    body: { currentPassword: DEMO_OWNER_PASSWORD, newPassword: 'a longer passphrase for 2027' },
  },
  listUsers: { summary: "The organization's dashboard users" },
  createUser: {
    summary: 'Invite a colleague as a viewer',
    body: { email: 'new.colleague@demo.example', name: 'New Colleague', role: 'viewer' },
  },
  updateUser: { summary: 'Make a viewer an admin', params: { id: DEMO.users.analyst }, body: { role: 'admin' } },
  deleteUser: { summary: 'Remove a user who left', params: { id: DEMO.users.leaver } },
  listApiKeys: { summary: "The organization's secret keys" },
  createApiKey: {
    summary: 'A read-only key for reporting',
    body: { name: 'reporting', permissions: ['analytics:read', 'orders:read'] },
  },
  revokeApiKey: { summary: "Revoke the storefront's key", params: { id: DEMO.keys.storefront } },

  listProducts: { summary: 'The newest products' },
  bulkUpdateProducts: {
    summary: 'Feature every summer product',
    query: { filter: filter({ 'tags.name': 'summer' }) },
    body: { addTags: ['featured'], addMetadata: { collection: 'summer-2026' } },
  },
  importProducts: {
    summary: 'Mirror a new product with one variant',
    body: {
      data: [
        {
          slug: 'wool-socks',
          title: 'Wool socks',
          description: 'Cushioned hiking socks in merino wool.',
          url: 'https://shop.example.com/products/wool-socks',
          tags: ['winter'],
          sites: ['shop.example.com'],
          variants: [{ slug: 'wool-socks-m', title: 'Wool socks, M', priceCents: 1800, currencyCode: 'USD' }],
        },
      ],
    },
  },
  getProduct: { summary: 'The linen shirt', params: { productId: products.linenShirt } },
  updateProduct: {
    summary: 'Note a reorder and tag the shirt a bestseller',
    params: { productId: products.linenShirt },
    body: { notes: 'Reorder in March.', tags: ['summer', 'bestseller'], metadata: { supplier: 'Lino & Co' } },
  },
  deleteProduct: { summary: 'Delete the discontinued tote', params: { productId: products.canvasTote } },
  updateProductVariant: {
    summary: "Store a variant's barcode",
    params: { productId: products.linenShirt, variantId: variants.linenShirtM },
    body: { metadata: { barcode: '5012345678900' } },
  },

  listProductTags: { summary: 'Every product tag' },
  getProductTag: { summary: 'The "summer" tag', params: { id: DEMO.productTags.summer } },
  renameProductTag: {
    summary: 'Rename "summer" everywhere',
    params: { id: DEMO.productTags.summer },
    body: { name: 'summer-collection' },
  },
  deleteProductTag: { summary: 'Drop the "clearance" tag', params: { id: DEMO.productTags.clearance } },
  listOrderTags: { summary: 'Every order tag' },
  getOrderTag: { summary: 'The "gift" tag', params: { id: DEMO.orderTags.gift } },
  renameOrderTag: { summary: 'Rename "gift"', params: { id: DEMO.orderTags.gift }, body: { name: 'gift-wrapped' } },
  deleteOrderTag: { summary: 'Drop the "priority" tag', params: { id: DEMO.orderTags.priority } },
  listCustomerTags: { summary: 'Every customer tag' },
  getCustomerTag: { summary: 'The "vip" tag', params: { id: DEMO.customerTags.vip } },
  renameCustomerTag: { summary: 'Rename "vip"', params: { id: DEMO.customerTags.vip }, body: { name: 'vip-2026' } },
  deleteCustomerTag: { summary: 'Drop the "newsletter" tag', params: { id: DEMO.customerTags.newsletter } },

  listCustomers: { summary: 'The newest customers' },
  bulkUpdateCustomers: {
    summary: 'Tag every customer in Great Britain',
    query: { filter: filter({ country: 'GB' }) },
    body: { addTags: ['uk'] },
  },
  importCustomers: {
    summary: 'Mirror a new customer from the store',
    body: {
      data: [
        {
          email: 'hedy@example.com',
          firstName: 'Hedy',
          lastName: 'Lamarr',
          country: 'AT',
          tags: ['newsletter'],
          metadata: { source: 'pos' },
        },
      ],
    },
  },
  getCustomer: { summary: 'Ada Lovelace', params: { id: customers.ada } },
  updateCustomer: {
    summary: "Note Ada's contact preference",
    params: { id: customers.ada },
    body: { notes: 'Prefers email; no calls.', tags: ['vip'] },
  },
  deleteCustomer: { summary: 'Delete a customer with no orders', params: { id: customers.margaret } },

  listOrders: { summary: 'The newest orders' },
  bulkUpdateOrders: {
    summary: 'Mark May orders as exported to the ERP',
    query: { filter: filter({ createdAt: { $gte: '2026-05-01T00:00:00Z', $lt: '2026-06-01T00:00:00Z' } }) },
    body: { addMetadata: { exportedTo: 'erp' } },
  },
  importOrders: {
    summary: "Mirror Ada's next order",
    body: {
      data: [
        {
          site: 'shop.example.com',
          customer: 'ada@example.com',
          remoteId: '5012345680',
          number: '#1003',
          totalCents: 13500,
          subtotalCents: 13500,
          currencyCode: 'USD',
          createdAt: '2026-06-01T12:00:00Z',
          items: [{ product: 'linen-shirt', variant: 'linen-shirt-l', quantity: 3, unitPriceCents: 4500 }],
        },
      ],
    },
  },
  getOrder: { summary: "Ada's first order", params: { id: orders.first } },
  updateOrder: {
    summary: 'Note a gift message',
    params: { id: orders.first },
    body: { notes: 'Gift message: "Happy birthday!"', tags: ['gift'] },
  },
  deleteOrder: { summary: "Delete Grace's order", params: { id: orders.second } },

  listWebhookEvents: { summary: 'Every event name' },
  listWebhooks: { summary: 'Every endpoint' },
  createWebhook: {
    summary: 'Subscribe a receiver on this machine to reward events, with a generated secret',
    body: {
      data: {
        url: `${DEMO_RECEIVER_URL}/rewards`,
        events: ['loyaltyReward.issued', 'loyaltyReward.redeemed'],
        generateSecret: true,
      },
    },
  },
  getWebhook: { summary: 'The orders endpoint', params: { id: webhooks.orders } },
  updateWebhook: {
    summary: 'Also subscribe the endpoint to new reviews',
    params: { id: webhooks.orders },
    body: { data: { events: ['order.updated', 'order.deleted', 'loyaltyReward.issued', 'review.created'] } },
  },
  deleteWebhook: { summary: 'Delete the retired endpoint', params: { id: webhooks.retired } },
  rotateWebhookSecret: { summary: "Rotate the orders endpoint's secret", params: { id: webhooks.orders } },
  listWebhookDeliveries: { summary: "The orders endpoint's delivery log", params: { id: webhooks.orders } },
  resendWebhookDelivery: {
    summary: 'Send the test ping again',
    params: { id: webhooks.orders, deliveryId: DEMO.deliveries.ping },
    body: {},
  },
  recoverWebhookDeliveries: {
    summary: 'Queue again what failed since May 1',
    params: { id: webhooks.orders },
    body: { since: '2026-05-01T00:00:00Z' },
  },
  testWebhook: { summary: 'Ping the orders endpoint', params: { id: webhooks.orders }, body: {} },
  listEvents: { summary: 'The newest order events', query: { type: 'order.*' } },
  getEvent: { summary: "The main site's site.created event", params: { id: DEMO.events.mainSiteCreated } },
  deliverEvent: {
    summary: "Send the main site's site.created event to the orders endpoint, which does not subscribe to it",
    params: { id: DEMO.events.mainSiteCreated },
    body: { webhookEndpointId: webhooks.orders },
  },

  listLoyaltyRewards: { summary: 'The newest rewards' },
  issueLoyaltyReward: {
    summary: 'Give Ada $10 off her next order of $50 or more, valid 30 days',
    body: {
      data: {
        loyaltyMembershipId: memberships.ada,
        reward: {
          type: 'amountCoupon',
          amountCents: 1000,
          productFilter: null,
          minimumOrderTotalCents: 5000,
          expiry: { type: 'daysAfterIssuance', days: 30 },
        },
        reason: 'Sorry about the late delivery',
      },
    },
  },
  redeemLoyaltyReward: {
    summary: "Redeem Ada's free-shipping code on her first order",
    body: { code: DEMO_REDEEMABLE_CODE, orderId: orders.first },
  },
  getLoyaltyReward: { summary: "Ada's welcome coupon", params: { id: rewards.welcome } },
  revokeLoyaltyReward: {
    summary: 'Withdraw a coupon issued by mistake',
    params: { id: rewards.apology },
    body: { reason: 'Issued twice by mistake' },
  },
  claimLoyaltyReward: {
    summary: 'Ada spends 200 points on free shipping',
    params: { id: memberships.ada },
    body: { loyaltyRuleId: rules.freeShippingForPoints },
  },

  listLoyaltyPrograms: { summary: 'Every program' },
  createLoyaltyProgram: {
    summary: 'A program for wholesale partners whose points last a year',
    body: {
      data: {
        name: 'Wholesale partners',
        pointsName: 'credits',
        pointsExpiry: { type: 'daysAfterEarning', days: 365 },
        tierWindow: { type: 'rolling', months: 12 },
      },
    },
  },
  getLoyaltyProgram: { summary: 'The main program', params: { id: programs.main } },
  updateLoyaltyProgram: {
    summary: 'Rewards expire 90 days after they are issued',
    params: { id: programs.main },
    body: { data: { defaultRewardExpiry: { type: 'daysAfterIssuance', days: 90 } } },
  },
  deleteLoyaltyProgram: { summary: 'Delete the staff pilot (no members)', params: { id: programs.pilot } },

  listLoyaltyTiers: { summary: 'Every tier' },
  createLoyaltyTier: {
    summary: 'Add a Diamond tier at 10,000 points',
    body: { data: { loyaltyProgramId: programs.main, name: 'Diamond', thresholdPoints: 10000 } },
  },
  getLoyaltyTier: { summary: 'The Gold tier', params: { id: tiers.gold } },
  updateLoyaltyTier: {
    summary: 'Gold from 2,500 points',
    params: { id: tiers.gold },
    body: { data: { thresholdPoints: 2500 } },
  },
  deleteLoyaltyTier: { summary: 'Delete the Platinum tier (nobody holds it)', params: { id: tiers.platinum } },

  listLoyaltyRules: { summary: 'Every rule' },
  createLoyaltyRule: {
    summary: '100 points on a birthday, once a year',
    body: {
      data: {
        loyaltyProgramId: programs.main,
        section: 'rules',
        name: '100 points on your birthday',
        config: { type: 'event', eventName: 'birthday', points: 100, frequency: 'oncePerYear' },
      },
    },
  },
  getLoyaltyRule: { summary: 'The order-spend rule', params: { id: rules.orderSpend } },
  updateLoyaltyRule: {
    summary: 'Double the points per dollar',
    params: { id: rules.orderSpend },
    body: {
      data: { name: '2 points per dollar spent', config: { type: 'orderSpend', pointsPerUnit: 2, unitCents: 100 } },
    },
  },
  deleteLoyaltyRule: { summary: 'Delete the spring offer', params: { id: rules.retired } },

  listLoyaltyMemberships: { summary: 'The newest members' },
  joinLoyaltyProgram: {
    summary: 'Katherine joins the main program',
    body: { data: { customerId: customers.katherine, loyaltyProgramId: programs.main } },
    status: 201,
  },
  importLoyaltyMemberships: {
    summary: 'Bring Edsger over with his balance from the previous program',
    body: { data: [{ customer: 'edsger@example.com', loyaltyProgramId: programs.main, pointsBalance: 1200 }] },
  },
  getLoyaltyMembership: { summary: "Ada's membership", params: { id: memberships.ada } },
  listLoyaltyMemberActivity: { summary: "Ada's activity feed, newest first", params: { id: memberships.ada } },
  updateLoyaltyMembership: {
    summary: 'Pin Ada to Gold',
    params: { id: memberships.ada },
    body: { data: { loyaltyTierId: tiers.gold } },
  },
  deleteLoyaltyMembership: { summary: "Delete Alan's membership", params: { id: memberships.alan } },
  leaveLoyaltyProgram: { summary: 'Grace leaves the program', params: { id: memberships.grace }, body: {} },
  listLoyaltyActivity: { summary: 'The newest ledger entries' },
  adjustLoyaltyPoints: {
    summary: 'Give Ada 100 points for a delayed parcel',
    params: { id: memberships.ada },
    body: { data: { points: 100, reason: 'Goodwill for a delayed parcel' } },
  },
  reportLoyaltyEvent: {
    summary: 'Ada signed up for the newsletter',
    body: {
      data: {
        customer: 'ada@example.com',
        loyaltyProgramId: programs.main,
        event: 'newsletterSignup',
        key: 'newsletter-ada',
      },
    },
  },
  addLoyaltyStamps: {
    summary: "Stamp Ada's card for a visit",
    body: {
      data: {
        customer: 'ada@example.com',
        loyaltyProgramId: programs.main,
        stampCardRuleId: rules.stampCard,
        stamps: 1,
        key: 'visit-2026-06-01',
      },
    },
  },
  importLoyaltyHistory: {
    summary: "Carry over Ada's points from the previous loyalty app",
    body: {
      data: [
        {
          customer: 'ada@example.com',
          loyaltyProgramId: programs.main,
          kind: 'earned',
          points: 250,
          createdAt: '2025-12-24T18:00:00Z',
          reason: 'Carried over from the previous loyalty app',
          key: 'legacy-8812',
        },
      ],
    },
  },
  bulkExpireLoyaltyPoints: {
    summary: 'Expire what is left of points earned before 2025',
    query: { filter: filter({ createdAt: { $lt: '2025-01-01T00:00:00Z' } }) },
    body: { reason: 'Points earned before 2025 expired' },
  },

  listReviews: { summary: 'The newest reviews' },
  bulkUpdateReviews: {
    summary: 'Flag every review of two stars or fewer for a look',
    query: { filter: filter({ rating: { $lte: 2 } }) },
    body: { flagged: true },
  },
  importReviews: {
    summary: 'Mirror a new review from the store',
    body: {
      data: [
        {
          product: 'linen-shirt',
          customer: 'katherine@example.com',
          remoteId: 'shirt-6',
          rating: 5,
          title: 'Perfect for travel',
          body: 'Packs small and looks fine straight out of the bag.',
          published: true,
          verifiedBuyer: true,
          language: 'en',
        },
      ],
    },
  },
  getReview: { summary: "Ada's review of the shirt", params: { id: DEMO.reviews.adaOnShirt } },
  updateReview: {
    summary: "Feature Ada's review",
    params: { id: DEMO.reviews.adaOnShirt },
    body: { published: true, metadata: { featuredOn: 'homepage' } },
  },
  setReviewReply: {
    summary: "Thank Ada for her review (it mails her: the demo's reviewReplied template is active)",
    params: { id: DEMO.reviews.adaOnShirt },
    body: { body: 'Thank you, Ada! Wash it cold and it stays this soft.' },
  },
  deleteReviewReply: { summary: "Delete the reply to Grace's review", params: { id: DEMO.reviews.graceOnShirt } },
  deleteReview: { summary: 'Delete a spam review', params: { id: DEMO.reviews.spam } },

  listWishlists: {
    summary: 'Wishlists holding the linen shirt, with their items',
    query: { filter: filter({ 'items.productId': products.linenShirt }), include: 'items,itemsCount' },
  },
  importWishlists: {
    summary: "Mirror Katherine's wishlist from the store",
    body: {
      data: [
        {
          customer: 'katherine@example.com',
          name: 'Birthday ideas',
          remoteId: 'wl-katherine-birthday',
          items: [
            { product: 'merino-scarf', note: 'Grey, please' },
            { product: 'linen-shirt', variant: 'linen-shirt-l' },
          ],
        },
      ],
    },
  },
  getWishlist: {
    summary: "Ada's summer wishlist with its items",
    params: { id: DEMO.wishlists.adaSummer },
    query: { include: 'items,itemsCount,customer' },
  },
  updateWishlist: {
    summary: "Rename Ada's summer wishlist",
    params: { id: DEMO.wishlists.adaSummer },
    body: { name: 'Summer 2026', metadata: { occasion: 'holiday' } },
  },
  deleteWishlist: { summary: "Delete Grace's old wishlist", params: { id: DEMO.wishlists.graceOld } },
  addWishlistItem: {
    summary: 'Add the linen shirt in L to Ada’s summer wishlist',
    params: { id: DEMO.wishlists.adaSummer },
    body: { product: 'linen-shirt', variant: 'linen-shirt-l', note: 'For Tom' },
    status: 201,
  },
  removeWishlistItem: {
    summary: 'Take the scarf off Ada’s summer wishlist',
    params: { id: DEMO.wishlists.adaSummer, itemId: DEMO.wishlistItems.adaScarf },
  },

  listProductQuestions: {
    summary: 'Questions waiting for moderation, with their answers',
    query: { filter: filter({ status: 'pending' }), include: 'answers,answersCount,product' },
  },
  bulkUpdateProductQuestions: {
    summary: 'Reject every pending question that mentions watches',
    query: { filter: filter({ status: 'pending' }), search: 'watches' },
    body: { status: 'rejected' },
  },
  createProductQuestion: {
    summary: 'Record a question a customer asked on the phone',
    body: {
      data: {
        product: 'merino-scarf',
        customer: 'katherine@example.com',
        authorName: 'Katherine J.',
        body: 'Can the scarf be gift-wrapped?',
      },
    },
    status: 201,
  },
  importProductQuestions: {
    summary: "Mirror a shopper's question and the store's answer",
    body: {
      data: [
        {
          product: 'canvas-tote',
          remoteId: 'pq-tote-laptop',
          authorName: 'Edsger D.',
          body: 'Does a 15-inch laptop fit in the tote?',
          status: 'published',
          answers: [{ body: 'Yes, with room for a charger.', authorName: 'Demo Store team' }],
        },
      ],
    },
  },
  getProductQuestion: {
    summary: 'The shirt question with its answers',
    params: { id: DEMO.productQuestions.shirtShrink },
    query: { include: 'answers,answersCount,product' },
  },
  updateProductQuestion: {
    summary: 'Publish the scarf question',
    params: { id: DEMO.productQuestions.scarfWarmth },
    body: { status: 'published' },
  },
  deleteProductQuestion: { summary: 'Delete a spam question', params: { id: DEMO.productQuestions.spam } },
  createProductQuestionAnswer: {
    summary: 'Answer the scarf question',
    params: { id: DEMO.productQuestions.scarfWarmth },
    body: { data: { body: 'Yes: it is 300 g/m² merino, warm well below freezing.' } },
    status: 201,
  },
  updateProductQuestionAnswer: {
    summary: "Publish a shopper's answer",
    params: { id: DEMO.productQuestionAnswers.shirtShrinkByShopper },
    body: { status: 'published' },
  },
  deleteProductQuestionAnswer: {
    summary: 'Delete an outdated answer',
    params: { id: DEMO.productQuestionAnswers.shirtShrinkStale },
  },

  getReviewSummary: { summary: "The shirt's summary", params: { id: products.linenShirt } },
  updateReviewSummary: {
    summary: "Show the shirt's summary on the storefront",
    params: { id: products.linenShirt },
    body: { suppressed: false },
  },
  regenerateReviewSummary: {
    summary: 'Ask for a new summary of the shirt',
    params: { id: products.linenShirt },
    body: {},
  },
  acceptReviewSummary: { summary: "Keep the shirt's summary", params: { id: products.linenShirt }, body: {} },
  revertReviewSummary: {
    summary: "Go back to the scarf's previous summary",
    params: { id: products.merinoScarf },
    body: {},
  },

  queryAnalytics: {
    summary: 'Orders and revenue by month, in New York time',
    body: {
      resource: 'orders',
      measures: ['count', 'revenue'],
      groupBy: ['createdAt'],
      granularity: 'month',
      timezone: 'America/New_York',
    },
  },
  getAnalyticsSchema: { summary: 'What can be aggregated' },

  listQuickFilters: {
    summary: 'The saved views of the customers list',
    query: { filter: filter({ resource: 'customers' }) },
  },
  createQuickFilter: {
    summary: 'Save a view of pending rewards, newest first',
    body: {
      data: { resource: 'loyalty-rewards', name: 'Pending rewards', filter: { status: 'pending' }, sort: '-createdAt' },
    },
    status: 201,
  },
  getQuickFilter: { summary: 'The VIP customers view', params: { id: DEMO.quickFilters.vipCustomers } },
  updateQuickFilter: {
    summary: 'Raise the big-orders threshold to $250',
    params: { id: DEMO.quickFilters.bigOrders },
    body: { data: { name: 'Orders over $250', filter: { totalCents: { $gt: 25000 } } } },
  },
  deleteQuickFilter: { summary: "Delete last season's view", params: { id: DEMO.quickFilters.retired } },

  listMailLog: {
    summary: 'Mail that was not sent',
    query: { filter: filter({ status: { $in: ['logged', 'failed', 'interrupted'] } }) },
  },
  getMailLogEntry: { summary: 'The reward mail to Ada', params: { id: DEMO.mail.rewardIssued } },
  listEmailTemplates: {
    summary: 'The active email templates',
    query: { filter: filter({ isActive: true }), sort: 'name' },
  },
  createEmailTemplate: {
    summary: 'Tell customers a reward is about to expire',
    body: {
      data: {
        kind: 'rewardExpiringSoon',
        name: 'Reward expiring',
        subject: '{{ customer.firstName }}, your reward expires in {{ daysLeft }} days',
        html: '<p>Hi {{ customer.firstName }},</p><p>Your {{ reward.description }} (code <b>{{ reward.code }}</b>) expires on {{ reward.expiresAt | date: "%B %-d" }}.</p>',
        text: 'Hi {{ customer.firstName }}, your {{ reward.description }} (code {{ reward.code }}) expires in {{ daysLeft }} days.',
      },
    },
    status: 201,
  },
  getEmailTemplate: { summary: 'The reward mail', params: { id: DEMO.emailTemplates.rewardIssued } },
  updateEmailTemplate: {
    summary: "Name the customer in the reward mail's subject",
    params: { id: DEMO.emailTemplates.rewardIssued },
    body: { data: { subject: '{{ customer.firstName }}, a reward from {{ organization.name }}' } },
  },
  deleteEmailTemplate: { summary: 'Delete the old reward mail', params: { id: DEMO.emailTemplates.retired } },
  previewEmailTemplate: {
    summary: 'Preview the reward mail for a customer called Grace',
    params: { id: DEMO.emailTemplates.rewardIssued },
    body: { variables: { customer: { firstName: 'Grace' } } },
  },

  listSurveyFlows: { summary: 'The active survey flows', query: { filter: filter({ isActive: true }) } },
  createSurveyFlow: {
    summary: 'Survey each order a week after it ships',
    body: {
      data: {
        name: 'A week after shipping',
        trigger: 'orderShipped',
        delayDays: 7,
        emailTemplateId: DEMO.emailTemplates.surveyRequest,
        questions: [{ id: 'overall', text: 'How happy are you with your order?', kind: 'rating' }],
      },
    },
    status: 201,
  },
  getSurveyFlow: { summary: 'The flow surveying delivered orders', params: { id: DEMO.surveyFlows.afterDelivery } },
  updateSurveyFlow: {
    summary: 'Ask five days after delivery instead of three',
    params: { id: DEMO.surveyFlows.afterDelivery },
    body: { data: { delayDays: 5 } },
  },
  deleteSurveyFlow: { summary: 'Delete the paused flow', params: { id: DEMO.surveyFlows.paused } },
  listSurveys: {
    summary: 'Surveys not answered yet whose request is waiting or went out, soonest first',
    query: { filter: filter({ status: { $in: ['scheduled', 'sent'] } }), sort: 'scheduledFor' },
  },
  getSurvey: { summary: "Ada's survey", params: { id: DEMO.surveys.ada } },
  deleteSurvey: { summary: "Delete Ada's shipping survey", params: { id: DEMO.surveys.adaShipped } },
  answerSurvey: {
    summary: "Ada's answers",
    params: { id: DEMO.surveys.ada },
    body: {
      answers: [
        { questionId: 'overall', step: 5 },
        { questionId: 'delivery', choice: 'On time' },
        { questionId: 'comment', text: 'The scarf came beautifully wrapped.' },
      ],
    },
  },

  listImportJobs: { summary: 'The import jobs, newest first' },
  createImportJob: {
    summary: 'Import three customers from a CSV file (one row is skipped for its email)',
    query: { resource: 'customers' },
    contentType: 'text/csv',
    body: DEMO_IMPORT_CSV,
    status: 202,
  },
  getImportJob: { summary: 'The customers import', params: { id: DEMO.importJobs.customers } },
  listImportJobSkippedRows: {
    summary: 'Why the customers import skipped a row',
    params: { id: DEMO.importJobs.customers },
  },
  cancelImportJob: { summary: 'Cancel the queued customers import', params: { id: DEMO.importJobs.queued } },

  listExportJobs: { summary: 'The export jobs, newest first' },
  createExportJob: {
    summary: 'Export the summer products with their variants and tags to CSV',
    body: {
      data: {
        resource: 'products',
        format: 'csv',
        filter: { 'tags.name': 'summer' },
        include: 'variants,tags',
        sort: 'title',
      },
    },
    status: 202,
  },
  getExportJob: { summary: 'The products export', params: { id: DEMO.exportJobs.products } },
  cancelExportJob: { summary: 'Cancel the queued customers export', params: { id: DEMO.exportJobs.queued } },
  downloadExportJob: { summary: "Download the products export's CSV", params: { id: DEMO.exportJobs.products } },
};
