import { sql, type Kysely } from 'kysely';
import { createUser, freeEmail } from '../auth/accounts.js';
import { createKey } from '../auth/keys.js';
import type { DB } from '../db/schema.js';
import { withPlannedIds } from '../util/ids.js';
import { dateFromRecords, seedHistory } from './history.js';
import { DEMO, DEMO_ANCHOR, DEMO_REDEEMABLE_CODE } from './ids.js';

/** One request of the demo world, sent through the API as the demo organization's key. */
export interface DemoRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  /** JSON, or the text of a file (an import job's) sent as `contentType`. */
  body?: unknown;
  contentType?: string;
}

/** What seeding the demo world needs from the caller (the CLI wires a runtime in; see src/cli/demo.ts). */
export interface DemoWorldServices {
  db: Kysely<DB>;
  organizationId: string;
  /** Sends one request through the API in this process, as the demo organization's key. */
  send(request: DemoRequest): Promise<{ statusCode: number; body: string }>;
  /** Runs the background work those requests queued (review summary generations, exports) until none is left. */
  runQueuedJobs(): Promise<void>;
  /**
   * The instant the world is seeded as of (default: now): its dates are moved by the whole days between DEMO_ANCHOR
   * and it, and its recent history ends on it (docs/api.md#documented-examples-and-the-demo-world).
   */
  now?: Date;
}

interface DemoStep extends DemoRequest {
  /** The ids the records this request creates take, in the order the API makes them. */
  ids?: readonly string[];
}

/** The demo's import job file: a CSV of customers, one row of which has no valid email. */
export const DEMO_IMPORT_CSV =
  'email,firstName,lastName,country,tags,metadata.source\n' +
  'katherine@example.com,Katherine,Johnson,US,newsletter|vip,fair\n' +
  'dorothy@example.com,Dorothy,Vaughan,US,newsletter,fair\n' +
  'not-an-email,Mary,Jackson,US,,fair\n';

const { customers, products, variants, sites, orders, programs, tiers, rules, memberships, rewards, webhooks } = DEMO;
const PRODUCT_REVIEWERS = ['ada', 'grace', 'alan', 'edsger', 'barbara'] as const;
const REVIEW_TEXT = [
  {
    rating: 5,
    title: 'Breathes on hot days',
    body: 'The linen is soft from the first wash and it keeps cool all day.',
  },
  { rating: 4, title: 'Runs a little large', body: 'Lovely fabric. I sized down and the fit is right now.' },
  { rating: 5, title: 'My summer staple', body: 'Wore it to a wedding and on the beach the same week. Holds up well.' },
  { rating: 3, title: 'Wrinkles easily', body: 'Comfortable, but expect creases after an hour of sitting.' },
  { rating: 4, title: 'Good value', body: 'Well stitched, colour did not fade after five washes.' },
];
const SCARF_TEXT = [
  { rating: 5, title: 'Warm without bulk', body: 'Thin enough for a coat collar and still warm on windy mornings.' },
  { rating: 5, title: 'Not itchy at all', body: 'I react to most wool. This merino is fine against my neck.' },
  { rating: 4, title: 'Beautiful colour', body: 'The grey is richer than in the photos. A little short for me.' },
  { rating: 4, title: 'Soft after washing', body: 'Hand-washed it twice; it kept its shape and got softer.' },
  { rating: 5, title: 'Gift success', body: 'Bought two as presents, both loved them.' },
];

/**
 * A receiver on the machine's loopback, where the demo endpoints point: sending to it needs ALLOW_HTTP_WEBHOOKS=1 and
 * WEBHOOK_ALLOW_PRIVATE_HOSTS=1 (docs/api.md#documented-examples-and-the-demo-world); without them its deliveries fail at send time.
 */
export const DEMO_RECEIVER_URL = 'http://localhost:9000/patron-webhooks';

const email = (name: string) => `${name}@example.com`;

/** The demo survey's questions, one of each kind. */
export const DEMO_SURVEY_QUESTIONS = [
  { id: 'overall', text: 'How happy are you with your order?', kind: 'rating' },
  { id: 'delivery', text: 'How was the delivery?', kind: 'choice', choices: ['Early', 'On time', 'Late'] },
  { id: 'comment', text: 'Anything we could do better?', kind: 'text' },
];

/**
 * The demo organization's store, loyalty program, reviews and webhooks: a small, believable world in which every
 * documented example works once (docs/api.md#documented-examples-and-the-demo-world). Requests go through the API, so every record, count,
 * event and ledger entry is what real use would have made; the well-known records get the ids of src/demo/ids.ts.
 */
const STEPS: readonly DemoStep[] = [
  {
    method: 'POST',
    url: '/v1/sites',
    ids: [sites.main],
    body: { data: { name: 'Main store', domain: 'shop.example.com', platform: 'shopify', currencyCode: 'USD' } },
  },
  {
    method: 'POST',
    url: '/v1/sites',
    ids: [sites.outlet],
    body: { data: { name: 'Outlet', domain: 'outlet.example.com', platform: 'shopify', currencyCode: 'USD' } },
  },
  {
    method: 'POST',
    url: '/v1/customers/import',
    ids: [
      customers.ada,
      customers.grace,
      customers.alan,
      customers.katherine,
      customers.margaret,
      customers.edsger,
      customers.barbara,
      DEMO.customerTags.vip,
      DEMO.customerTags.newsletter,
    ],
    body: {
      data: [
        { email: email('ada'), firstName: 'Ada', lastName: 'Lovelace', country: 'GB', tags: ['vip'] },
        { email: email('grace'), firstName: 'Grace', lastName: 'Hopper', country: 'US', tags: ['newsletter'] },
        { email: email('alan'), firstName: 'Alan', lastName: 'Turing', country: 'GB' },
        { email: email('katherine'), firstName: 'Katherine', lastName: 'Johnson', country: 'US' },
        { email: email('margaret'), firstName: 'Margaret', lastName: 'Hamilton', country: 'US' },
        { email: email('edsger'), firstName: 'Edsger', lastName: 'Dijkstra', country: 'NL' },
        { email: email('barbara'), firstName: 'Barbara', lastName: 'Liskov', country: 'US' },
      ],
    },
  },
  {
    method: 'POST',
    url: '/v1/products/import',
    ids: [
      products.linenShirt,
      products.merinoScarf,
      products.canvasTote,
      variants.linenShirtM,
      variants.linenShirtL,
      variants.merinoScarfGrey,
      DEMO.productTags.summer,
      DEMO.productTags.clearance,
    ],
    body: {
      data: [
        {
          slug: 'linen-shirt',
          title: 'Linen shirt',
          description: 'A relaxed shirt in washed European linen.',
          url: 'https://shop.example.com/products/linen-shirt',
          tags: ['summer'],
          sites: ['shop.example.com'],
          variants: [
            { slug: 'linen-shirt-m', title: 'Linen shirt, M', priceCents: 4500, currencyCode: 'USD' },
            { slug: 'linen-shirt-l', title: 'Linen shirt, L', priceCents: 4500, currencyCode: 'USD' },
          ],
        },
        {
          slug: 'merino-scarf',
          title: 'Merino scarf',
          description: 'A fine-gauge scarf in extra-fine merino wool.',
          url: 'https://shop.example.com/products/merino-scarf',
          sites: ['shop.example.com'],
          variants: [{ slug: 'merino-scarf-grey', title: 'Merino scarf, grey', priceCents: 6500, currencyCode: 'USD' }],
        },
        {
          slug: 'canvas-tote',
          title: 'Canvas tote',
          description: 'A heavy canvas bag, discontinued.',
          url: 'https://outlet.example.com/products/canvas-tote',
          tags: ['clearance'],
          sites: ['outlet.example.com'],
        },
      ],
    },
  },
  {
    method: 'POST',
    url: '/v1/loyalty-programs',
    ids: [programs.pilot],
    body: { data: { name: 'Staff pilot', pointsName: 'stars' } },
  },
  {
    method: 'PATCH',
    url: `/v1/loyalty-programs/${programs.main}`,
    body: { data: { name: 'Example Rewards', pointsName: 'points' } },
  },
  {
    method: 'POST',
    url: '/v1/loyalty-tiers',
    ids: [tiers.silver],
    body: { data: { loyaltyProgramId: programs.main, name: 'Silver', thresholdPoints: 500 } },
  },
  {
    method: 'POST',
    url: '/v1/loyalty-tiers',
    ids: [tiers.gold],
    body: { data: { loyaltyProgramId: programs.main, name: 'Gold', thresholdPoints: 2000 } },
  },
  {
    method: 'POST',
    url: '/v1/loyalty-tiers',
    ids: [tiers.platinum],
    body: { data: { loyaltyProgramId: programs.main, name: 'Platinum', thresholdPoints: 5000 } },
  },
  {
    method: 'POST',
    url: '/v1/loyalty-rules',
    ids: [rules.orderSpend],
    body: {
      data: {
        loyaltyProgramId: programs.main,
        section: 'rules',
        name: '1 point per dollar spent',
        config: { type: 'orderSpend', pointsPerUnit: 1, unitCents: 100 },
      },
    },
  },
  {
    method: 'POST',
    url: '/v1/loyalty-rules',
    ids: [rules.freeShippingForPoints],
    body: {
      data: {
        loyaltyProgramId: programs.main,
        section: 'rewards',
        name: 'Free shipping for 200 points',
        config: { pointsCost: 200, reward: { type: 'freeShipping', maximumValueCents: 1500 } },
      },
    },
  },
  {
    method: 'POST',
    url: '/v1/loyalty-rules',
    ids: [rules.stampCard],
    body: {
      data: {
        loyaltyProgramId: programs.main,
        section: 'stampCards',
        name: 'Tenth visit: 10% off',
        config: {
          stampsRequired: 10,
          stampsPerOrder: 0,
          reward: {
            type: 'percentageCoupon',
            percentageDiscount: 10,
            productFilter: null,
            minimumOrderTotalCents: null,
          },
        },
      },
    },
  },
  {
    method: 'POST',
    url: '/v1/loyalty-rules',
    ids: [rules.newsletterSignup],
    body: {
      data: {
        loyaltyProgramId: programs.main,
        section: 'rules',
        name: '50 points for joining the newsletter',
        config: { type: 'event', eventName: 'newsletterSignup', points: 50, frequency: 'once' },
      },
    },
  },
  {
    method: 'POST',
    url: '/v1/loyalty-rules',
    ids: [rules.retired],
    body: {
      data: {
        loyaltyProgramId: programs.main,
        section: 'offers',
        name: 'Double points, spring weekend',
        isActive: false,
        config: {
          type: 'pointsMultiplier',
          multiplier: 2,
          startsAt: '2026-03-20T00:00:00Z',
          endsAt: '2026-03-23T00:00:00Z',
        },
      },
    },
  },
  ...(['ada', 'grace', 'alan'] as const).map((name): DemoStep => ({
    method: 'POST',
    url: '/v1/loyalty-memberships',
    ids: [memberships[name]],
    body: { data: { customerId: customers[name], loyaltyProgramId: programs.main } },
  })),
  {
    method: 'POST',
    url: '/v1/orders/import',
    ids: [
      orders.first,
      orders.second,
      DEMO.orderItems.shirts,
      DEMO.orderItems.scarf,
      DEMO.orderTags.gift,
      DEMO.orderTags.priority,
    ],
    body: {
      data: [
        {
          site: 'shop.example.com',
          customer: email('ada'),
          remoteId: '5012345678',
          number: '#1001',
          totalCents: 9000,
          subtotalCents: 9000,
          currencyCode: 'USD',
          tags: ['gift'],
          createdAt: '2026-05-02T10:15:00Z',
          items: [{ product: 'linen-shirt', variant: 'linen-shirt-m', quantity: 2, unitPriceCents: 4500 }],
        },
        {
          site: 'shop.example.com',
          customer: email('grace'),
          remoteId: '5012345679',
          number: '#1002',
          totalCents: 6500,
          subtotalCents: 6500,
          currencyCode: 'USD',
          tags: ['priority'],
          createdAt: '2026-05-03T16:40:00Z',
          items: [{ product: 'merino-scarf', quantity: 1, unitPriceCents: 6500 }],
        },
      ],
    },
  },
  {
    method: 'POST',
    url: `/v1/loyalty-memberships/${memberships.ada}/points-adjustments`,
    body: { data: { points: 500, reason: 'Welcome bonus for early members' } },
  },
  ...(
    [
      [rewards.welcome, { type: 'amountCoupon', amountCents: 500, productFilter: null, minimumOrderTotalCents: 2000 }],
      [
        rewards.apology,
        { type: 'percentageCoupon', percentageDiscount: 15, productFilter: null, minimumOrderTotalCents: null },
      ],
      [rewards.birthday, { type: 'freeShipping', maximumValueCents: null }],
    ] as const
  ).map(([id, reward]): DemoStep => ({
    method: 'POST',
    url: '/v1/loyalty-rewards',
    ids: [id],
    body: { data: { loyaltyMembershipId: memberships.ada, reward, reason: 'Issued by the demo' } },
  })),
  {
    method: 'POST',
    url: '/v1/reviews/import',
    ids: [DEMO.reviews.adaOnShirt, DEMO.reviews.graceOnShirt],
    body: {
      data: PRODUCT_REVIEWERS.map((name, index) => ({
        product: 'linen-shirt',
        customer: email(name),
        remoteId: `shirt-${index + 1}`,
        published: true,
        verifiedBuyer: name === 'ada',
        language: 'en',
        createdAt: `2026-05-${String(10 + index).padStart(2, '0')}T09:00:00Z`,
        ...REVIEW_TEXT[index],
      })),
    },
  },
  {
    method: 'POST',
    url: '/v1/reviews/import',
    ids: [DEMO.reviews.spam],
    body: {
      data: [
        {
          product: 'merino-scarf',
          customer: email('katherine'),
          remoteId: 'scarf-spam',
          rating: 1,
          title: 'Cheap watches here',
          body: 'Visit my shop for cheap watches!!!',
          published: false,
          flagged: true,
        },
        ...PRODUCT_REVIEWERS.map((name, index) => ({
          product: 'merino-scarf',
          customer: email(name),
          remoteId: `scarf-${index + 1}`,
          published: true,
          language: 'en',
          createdAt: `2026-05-${String(15 + index).padStart(2, '0')}T09:00:00Z`,
          ...SCARF_TEXT[index],
        })),
      ],
    },
  },
  {
    method: 'POST',
    url: '/v1/wishlists/import',
    // The API makes each wishlist's id before its items' (docs/api.md#wishlists).
    ids: [
      DEMO.wishlists.adaSummer,
      DEMO.wishlistItems.adaShirt,
      DEMO.wishlistItems.adaScarf,
      DEMO.wishlists.graceOld,
      DEMO.wishlistItems.graceTote,
    ],
    body: {
      data: [
        {
          customer: email('ada'),
          name: 'Summer wishlist',
          remoteId: 'wl-ada-summer',
          items: [
            { product: 'linen-shirt', variant: 'linen-shirt-m', note: 'In white if it comes back' },
            { product: 'merino-scarf' },
          ],
        },
        { customer: email('grace'), name: 'Old ideas', remoteId: 'wl-grace-old', items: [{ product: 'canvas-tote' }] },
      ],
    },
  },
  {
    method: 'POST',
    url: '/v1/product-questions/import',
    // The API makes the questions' ids, in row order, before their answers' (docs/api.md#question-import).
    ids: [
      DEMO.productQuestions.shirtShrink,
      DEMO.productQuestions.scarfWarmth,
      DEMO.productQuestions.spam,
      DEMO.productQuestionAnswers.shirtShrinkByStore,
      DEMO.productQuestionAnswers.shirtShrinkByShopper,
      DEMO.productQuestionAnswers.shirtShrinkStale,
    ],
    body: {
      data: [
        {
          product: 'linen-shirt',
          customer: email('grace'),
          remoteId: 'pq-shirt-shrink',
          authorName: 'Grace H.',
          authorEmail: email('grace'),
          body: 'Does the linen shirt shrink in the wash?',
          status: 'published',
          createdAt: '2026-05-02T08:30:00Z',
          answers: [
            {
              body: 'It is pre-washed, so it keeps its size at 30 °C. Hang it to dry.',
              authorName: 'Demo Store team',
              createdAt: '2026-05-02T10:00:00Z',
            },
            {
              body: 'Mine did not shrink after ten washes.',
              authorName: 'Alan T.',
              source: 'shopper',
              status: 'pending',
              createdAt: '2026-05-03T19:12:00Z',
            },
            {
              body: 'We will check with the weaver.',
              authorName: 'Demo Store team',
              createdAt: '2026-05-02T09:00:00Z',
            },
          ],
        },
        {
          product: 'merino-scarf',
          remoteId: 'pq-scarf-warmth',
          authorName: 'Sam',
          body: 'Is the scarf warm enough for −10 °C?',
          createdAt: '2026-06-11T07:45:00Z',
        },
        {
          product: 'canvas-tote',
          remoteId: 'pq-tote-spam',
          authorName: 'Best Deals',
          authorEmail: 'deals@spam.invalid',
          body: 'Cheap watches at my shop!!!',
          status: 'rejected',
        },
      ],
    },
  },
  {
    method: 'POST',
    url: '/v1/webhooks',
    ids: [webhooks.orders],
    body: { data: { url: DEMO_RECEIVER_URL, events: ['order.updated', 'order.deleted', 'loyaltyReward.issued'] } },
  },
  {
    method: 'POST',
    url: '/v1/webhooks',
    ids: [webhooks.retired],
    body: { data: { url: `${DEMO_RECEIVER_URL}/legacy`, events: ['customer.updated'] } },
  },
  {
    method: 'POST',
    url: '/v1/quick-filters',
    ids: [DEMO.quickFilters.vipCustomers],
    body: { data: { resource: 'customers', name: 'VIP customers', filter: { 'tags.name': 'vip' }, sort: 'email' } },
  },
  {
    method: 'POST',
    url: '/v1/quick-filters',
    ids: [DEMO.quickFilters.bigOrders],
    body: { data: { resource: 'orders', name: 'Orders over $100', filter: { totalCents: { $gt: 10000 } } } },
  },
  {
    method: 'POST',
    url: '/v1/quick-filters',
    ids: [DEMO.quickFilters.retired],
    body: { data: { resource: 'products', name: 'Last season', filter: { 'tags.name': 'clearance' } } },
  },
  {
    method: 'POST',
    url: '/v1/email-templates',
    ids: [DEMO.emailTemplates.rewardIssued],
    body: {
      data: {
        kind: 'rewardIssued',
        name: 'Reward issued',
        subject: 'A reward from {{ organization.name }}',
        html: '<p>Hi {{ customer.firstName }},</p><p>Your reward: <b>{{ reward.description }}</b>. Code {{ reward.code }}.</p>',
        text: 'Hi {{ customer.firstName }}, your reward: {{ reward.description }}. Code {{ reward.code }}.',
      },
    },
  },
  {
    method: 'POST',
    url: '/v1/email-templates',
    ids: [DEMO.emailTemplates.pointsExpiring],
    body: {
      data: {
        kind: 'pointsExpiringSoon',
        name: 'Points expiring',
        subject: '{{ points }} points expire soon',
        html: '<p>{{ points }} of your points expire on {{ expiresAt | date: "%B %-d" }}.</p>',
      },
    },
  },
  {
    method: 'POST',
    url: '/v1/email-templates',
    ids: [DEMO.emailTemplates.retired],
    body: {
      data: {
        kind: 'rewardIssued',
        name: 'Old reward mail',
        subject: 'Your reward',
        html: '<p>{{ reward.code }}</p>',
        isActive: false,
      },
    },
  },
  {
    method: 'POST',
    url: '/v1/email-templates',
    ids: [DEMO.emailTemplates.surveyRequest],
    body: {
      data: {
        kind: 'surveyRequest',
        name: 'How was your order?',
        subject: 'How was order {{ order.number }}, {{ customer.firstName }}?',
        html: '<p>Hi {{ customer.firstName }},</p><p><a href="{{ survey.url }}">Tell us</a> how order {{ order.number }} went.</p>',
        text: 'Hi {{ customer.firstName }}, tell us how order {{ order.number }} went: {{ survey.url }}',
      },
    },
  },
  {
    method: 'POST',
    url: '/v1/email-templates',
    ids: [DEMO.emailTemplates.reviewReplied],
    body: {
      data: {
        kind: 'reviewReplied',
        name: 'We replied to your review',
        subject: '{{ organization.name }} replied to your review of {{ product.title }}',
        html: '<p>Hi {{ customer.firstName }},</p><p>{{ reply.body }}</p><p>You wrote: “{{ review.title }}”</p>',
        text: 'Hi {{ customer.firstName }}, {{ organization.name }} replied to your review: {{ reply.body }}',
      },
    },
  },
  // Grace's review has a reply (its mail to her in the mail log), for the example that deletes one.
  {
    method: 'PUT',
    url: `/v1/reviews/${DEMO.reviews.graceOnShirt}/reply`,
    body: { body: 'Thank you, Grace! The size guide now says the shirt runs half a size large.' },
  },
  {
    method: 'POST',
    url: '/v1/survey-flows',
    ids: [DEMO.surveyFlows.afterDelivery],
    body: {
      data: {
        name: 'Three days after delivery',
        trigger: 'orderDelivered',
        delayDays: 3,
        emailTemplateId: DEMO.emailTemplates.surveyRequest,
        questions: DEMO_SURVEY_QUESTIONS,
      },
    },
  },
  {
    method: 'POST',
    url: '/v1/survey-flows',
    ids: [DEMO.surveyFlows.paused],
    body: {
      data: {
        name: 'A month after delivery',
        trigger: 'orderDelivered',
        delayDays: 30,
        emailTemplateId: DEMO.emailTemplates.surveyRequest,
        questions: [DEMO_SURVEY_QUESTIONS[0]],
        isActive: false,
      },
    },
  },
  {
    method: 'POST',
    url: '/v1/survey-flows',
    ids: [DEMO.surveyFlows.afterShipping],
    body: {
      data: {
        name: 'Right after shipping',
        trigger: 'orderShipped',
        delayDays: 0,
        emailTemplateId: DEMO.emailTemplates.surveyRequest,
        questions: [DEMO_SURVEY_QUESTIONS[1]],
      },
    },
  },
  // Both orders ship and arrive: each active flow schedules a survey per order, its request in the mail log.
  {
    method: 'PATCH',
    url: `/v1/orders/${orders.first}`,
    ids: [DEMO.surveys.ada, DEMO.mail.surveyAda, DEMO.surveys.adaShipped, DEMO.mail.surveyAdaShipped],
    body: { shippedAt: '2026-05-04T08:00:00Z', deliveredAt: '2026-05-06T12:00:00Z' },
  },
  {
    method: 'PATCH',
    url: `/v1/orders/${orders.second}`,
    body: { shippedAt: '2026-05-05T08:00:00Z', deliveredAt: '2026-05-07T09:30:00Z' },
  },
  // Run by the first run of the queued jobs below: two customers, and a row it skips for its email.
  {
    method: 'POST',
    url: '/v1/import-jobs?resource=customers',
    ids: [DEMO.importJobs.customers],
    contentType: 'text/csv',
    body: DEMO_IMPORT_CSV,
  },
  // Written by the first run of the queued jobs below, so its file is there to download.
  {
    method: 'POST',
    url: '/v1/export-jobs',
    ids: [DEMO.exportJobs.products],
    body: { data: { resource: 'products', format: 'csv', include: 'variants,tags' } },
  },
];

const DAY_MS = 86_400_000;
const utcDay = (instant: Date) => Math.floor(instant.getTime() / DAY_MS);

/**
 * The world's dates as written are those of DEMO_ANCHOR's day; seeded on another day, each moves by the whole days
 * between them (times of day kept), so the same records stand in the same relation to the day they were seeded.
 */
export function shiftDates<T>(body: T, days: number): T {
  if (days === 0 || body === undefined || typeof body === 'string') return body;
  const moved = JSON.stringify(body).replace(/"(\d{4}-\d{2}-\d{2})T/g, (_, day: string) => {
    const shifted = new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
    return `"${shifted}T`;
  });
  return JSON.parse(moved) as T;
}

/** The step after which the store's history is seeded: the import of the well-known orders. */
const HISTORY_AFTER = STEPS.findIndex((step) => step.url === '/v1/orders/import');

/** Seeds the world into the demo organization (a fresh one: the well-known ids must be free). */
export async function seedDemoWorld(services: DemoWorldServices): Promise<void> {
  const { db, organizationId } = services;
  const now = services.now ?? new Date();
  const days = utcDay(now) - utcDay(DEMO_ANCHOR);
  // The world's steps are written as of DEMO_ANCHOR and moved to `now`; the history is drawn for `now` already.
  const send = async (step: DemoStep, { asOfAnchor = true } = {}) => {
    const dated = asOfAnchor ? { ...step, body: shiftDates(step.body, days) } : step;
    const answer = await withPlannedIds(step.ids ?? [], () => services.send(dated));
    if (answer.statusCode >= 300) {
      throw new Error(
        `seeding the demo world: ${step.method} ${step.url} answered ${answer.statusCode} ${answer.body}`,
      );
    }
    return answer;
  };
  for (const step of STEPS) {
    await send(step);
    // The store's last 90 days, once its products, rules and first orders are there and before the survey flows, so
    // its delivered orders schedule no surveys.
    if (step === STEPS[HISTORY_AFTER])
      await seedHistory(db, organizationId, now, (request) => send(request, { asOfAnchor: false }));
  }
  await dateFromRecords(db, organizationId);
  // The first summaries (the reviews above reached the threshold), then a second one for the scarf, so it has a
  // previous summary to revert to.
  await services.runQueuedJobs();
  await send({ method: 'POST', url: `/v1/products/${products.merinoScarf}/review-summary/regenerate`, body: {} });
  await services.runQueuedJobs();
  // Queued after the last run, for the cancel example (a server's job runner may write it before anyone cancels it:
  // cancelling a finished export then answers it as it is).
  await send({
    method: 'POST',
    url: '/v1/export-jobs',
    ids: [DEMO.exportJobs.queued],
    body: { data: { resource: 'customers', format: 'jsonl', filter: { 'tags.name': 'vip' } } },
  });
  await send({
    method: 'POST',
    url: '/v1/import-jobs?resource=customers',
    ids: [DEMO.importJobs.queued],
    contentType: 'text/csv',
    body: 'email,firstName,lastName,tags\nruth@example.com,Ruth,Teitelbaum,newsletter\n',
  });
  // A ping, so the delivery log has an entry to resend; its id is made by SQL, so it is renamed here.
  await send({ method: 'POST', url: `/v1/webhooks/${webhooks.orders}/test`, body: {} });
  await sql`update webhook_deliveries set id = ${DEMO.deliveries.ping}::uuid
    where organization_id = ${organizationId}::uuid and webhook_id = ${webhooks.orders}::uuid
      and event_name = 'webhook.test'`.execute(db);
  // An event to read and send by hand (GET /events/{id}, POST /events/{id}/deliver); its id is made when recorded.
  await sql`update events set id = ${DEMO.events.mainSiteCreated}::uuid
    where organization_id = ${organizationId}::uuid and name = 'site.created' and object_id = ${DEMO.sites.main}::uuid`.execute(
    db,
  );
  await seedDemoMail(db, organizationId);
  // Reward codes are drawn at random; the redeem example spends this one.
  const missing: string[] = [];
  for (const { url, id } of wellKnownRecords()) {
    const answer = await services.send({ method: 'GET', url });
    if (answer.statusCode !== 200 || !answer.body.includes(id)) missing.push(`${id} (${url})`);
  }
  if (missing.length)
    throw new Error(`seeding the demo world: these well-known records are missing: ${missing.join(', ')}`);
  await sql`update loyalty_rewards set code = ${DEMO_REDEEMABLE_CODE}
    where organization_id = ${organizationId}::uuid and id = ${rewards.birthday}::uuid`.execute(db);
  await seedDemoAccounts(db, organizationId);
}

/**
 * The dashboard records the examples name (docs/api.md#dashboard-sessions): two users beside the owner (one the
 * update example changes, one the delete example removes) and a key the revoke example revokes. Made directly: the
 * endpoints that make them answer only a signed-in session.
 */
async function seedDemoAccounts(db: Kysely<DB>, organizationId: string): Promise<void> {
  for (const [local, id, name] of [
    ['analyst', DEMO.users.analyst, 'Ana Lyst'],
    ['leaver', DEMO.users.leaver, 'Lee Ver'],
  ] as const) {
    const email = await freeEmail(db, local, 'demo.example');
    await withPlannedIds([id], () => createUser(db, { organizationId, email, name, role: 'viewer' }));
  }
  await withPlannedIds([DEMO.keys.storefront], () =>
    createKey(db, { organizationId, permissions: ['products:read', 'reviews:read'], name: 'storefront' }),
  );
}

/**
 * The mail log's example entry (docs/api.md#mail): the reward mail Ada would have had, written directly as the sender
 * records a mail when no SMTP_URL is set (`logged`): her rewards are issued before the world has a reward template.
 */
async function seedDemoMail(db: Kysely<DB>, organizationId: string): Promise<void> {
  await db
    .insertInto('mail')
    .values({
      organization_id: organizationId,
      id: DEMO.mail.rewardIssued,
      kind: 'rewardIssued',
      marketing: false,
      recipient: email('ada'),
      customer_id: DEMO.customers.ada,
      subject: 'Your reward is ready',
      html: '<p>Hello Ada, your reward code is <strong>SPRG-26AB-CD34</strong>.</p>',
      text: 'Hello Ada, your reward code is SPRG-26AB-CD34.',
      status: 'logged',
      attempts: 1,
    })
    .execute();
}

/** Where each well-known record is read: every one must be there once the world is seeded. */
function wellKnownRecords(): { url: string; id: string }[] {
  const urls = (path: string, ids: Record<string, string>) =>
    Object.values(ids).map((id) => ({ url: `/v1/${path}/${id}`, id }));
  return [
    ...urls('sites', DEMO.sites),
    ...urls('customers', DEMO.customers),
    ...urls('products', DEMO.products),
    ...urls('product-tags', DEMO.productTags),
    ...urls('order-tags', DEMO.orderTags),
    ...urls('customer-tags', DEMO.customerTags),
    ...urls('orders', DEMO.orders),
    ...urls('webhooks', DEMO.webhooks),
    ...urls('loyalty-programs', DEMO.programs),
    ...urls('loyalty-tiers', DEMO.tiers),
    ...urls('loyalty-rules', DEMO.rules),
    ...urls('loyalty-memberships', DEMO.memberships),
    ...urls('loyalty-rewards', DEMO.rewards),
    ...urls('reviews', DEMO.reviews),
    ...urls('quick-filters', DEMO.quickFilters),
    ...urls('email-templates', DEMO.emailTemplates),
    ...urls('mail-log', DEMO.mail),
    ...urls('survey-flows', DEMO.surveyFlows),
    ...urls('surveys', DEMO.surveys),
    ...urls('wishlists', DEMO.wishlists),
    ...urls('product-questions', DEMO.productQuestions),
    ...urls('export-jobs', DEMO.exportJobs),
    ...urls('import-jobs', DEMO.importJobs),
    ...Object.values(DEMO.productQuestionAnswers).map((id) => ({
      url: `/v1/product-questions/${DEMO.productQuestions.shirtShrink}?include=answers`,
      id,
    })),
    ...Object.values(DEMO.variants).map((id) => ({ url: `/v1/products?include=variants&limit=100`, id })),
  ];
}
