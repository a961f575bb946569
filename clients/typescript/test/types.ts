/**
 * Compile-time proofs, checked by `tsc -p clients/typescript` (test/typecheck.test.ts) and never run: every
 * `@ts-expect-error` below marks a call the compiler must refuse. Should the types ever accept one of them, the
 * directive is unused and the typecheck fails.
 */
import {
  createPatronClient,
  verifyWebhook,
  type PatronClient,
  type ListItemOf,
  type ListPath,
  type RuleConfigOf,
  type Schemas,
} from '../src/index.js';

const client = createPatronClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'sk_test' });
const membershipId = '00000000-0000-7000-8000-000000000000';

export async function rewards() {
  const coupon = {
    type: 'amountCoupon',
    amountCents: 1000,
    productFilter: null,
    minimumOrderTotalCents: null,
  } as const;
  // A well-formed reward compiles, and the answer is a typed reward record.
  const reward = await client.POST('/loyalty-rewards', {
    body: { data: { loyaltyMembershipId: membershipId, reward: coupon } },
  });
  // The bare form is accepted as well (docs/api.md#wrapped-and-unwrapped-bodies).
  await client.POST('/loyalty-rewards', { body: { loyaltyMembershipId: membershipId, reward: coupon } });
  const status: Schemas['LoyaltyReward']['status'] = reward.status;

  await client.POST('/loyalty-rewards', {
    // @ts-expect-error an amount is a number, not text
    body: { data: { loyaltyMembershipId: membershipId, reward: { ...coupon, amountCents: '1000' } } },
  });
  await client.POST('/loyalty-rewards', {
    // @ts-expect-error points are not issued as a reward (the server answers 400): a points adjustment adds them
    body: { data: { loyaltyMembershipId: membershipId, reward: { type: 'points', amount: 100 } } },
  });
  await client.POST('/loyalty-rewards', {
    // @ts-expect-error no such reward type
    body: { data: { loyaltyMembershipId: membershipId, reward: { type: 'cashback', amount: 1 } } },
  });
  await client.POST('/loyalty-rewards', {
    // @ts-expect-error an amount coupon needs amountCents, productFilter and minimumOrderTotalCents
    body: { data: { loyaltyMembershipId: membershipId, reward: { type: 'amountCoupon' } } },
  });
  // @ts-expect-error the membership is required
  await client.POST('/loyalty-rewards', { body: { data: { reward: coupon } } });
  // @ts-expect-error the body is required
  await client.POST('/loyalty-rewards');
  // @ts-expect-error rewards are issued, never PUT
  await client.PUT('/loyalty-rewards', { body: {} });
  return status;
}

export async function imports() {
  const result = await client.POST('/customers/import', { body: { data: [{ email: 'ada@example.com' }] } });
  const created: string | undefined = result.data[0]?.email;

  await client.POST('/customers/import', {
    // @ts-expect-error every row needs its email
    body: { data: [{ firstName: 'Ada' }] },
  });
  await client.POST('/customers/import', {
    // @ts-expect-error the rows go in data
    body: [{ email: 'ada@example.com' }],
  });
  await client.POST('/customers/import', {
    // @ts-expect-error an unknown field is refused
    body: { data: [{ email: 'ada@example.com', nickname: 'Ada' }] },
  });
  await client.POST('/products/import', {
    // @ts-expect-error priceCents is an integer of cents, not text
    body: { data: [{ slug: 'mug', title: 'Mug', variants: [{ slug: 'red', priceCents: '12.50' }] }] },
  });
  return created;
}

export async function webhooks() {
  const endpoint = await client.POST('/webhooks', {
    body: { data: { url: 'https://example.com/hooks', events: ['site.created'], hmacSecret: 'a-secret-of-sixteen+' } },
  });
  const active: boolean = endpoint.isActive;

  await client.POST('/webhooks', {
    // @ts-expect-error events is a list of names
    body: { data: { url: 'https://example.com/hooks', events: 'site.created' } },
  });
  await client.POST('/webhooks', {
    // @ts-expect-error isActive is a boolean
    body: { data: { url: 'https://example.com/hooks', events: ['site.created'], isActive: 'yes' } },
  });
  await client.POST('/webhooks', {
    // @ts-expect-error an unknown field is refused
    body: { data: { url: 'https://example.com/hooks', events: ['site.created'], secret: 'x' } },
  });
  await client.PUT('/webhooks/{id}', {
    params: { path: { id: endpoint.id } },
    // @ts-expect-error the URL is text
    body: { data: { url: 42 } },
  });
  // @ts-expect-error the path parameter is required
  await client.GET('/webhooks/{id}');
  return active;
}

export async function answersAndLists() {
  const organization = await client.GET('/organization');
  // @ts-expect-error the organization has no such field
  void organization.balance;
  // @ts-expect-error no such path
  await client.GET('/customer');
  await client.GET('/customers', {
    // @ts-expect-error not one of the sorts of the list
    params: { query: { sort: 'shoeSize' } },
  });

  // paginate() takes every list, and yields its records.
  for await (const customer of client.paginate('/customers', { params: { query: { limit: 250, sort: 'email' } } })) {
    const email: string = customer.email;
    void email;
  }
  for await (const delivery of client.paginate('/webhooks/{id}/events', { params: { path: { id: membershipId } } })) {
    const status: string = delivery.status;
    void status;
  }
  // The audit log is a list like the others, with its shorthand filters typed.
  for await (const entry of client.paginate('/audit-log', {
    params: { query: { actor: 'apiKey', resourceType: 'products', status: '2xx' } },
  })) {
    const actorType: 'apiKey' | 'user' | 'cli' | 'system' = entry.actor.type;
    void actorType;
  }
  // @ts-expect-error the organization is not a list
  client.paginate('/organization');
  // @ts-expect-error paginate() manages the cursor itself
  client.paginate('/customers', { params: { query: { cursor: 'abc' } } });
  // @ts-expect-error the deliveries' list needs its endpoint id
  client.paginate('/webhooks/{id}/events');

  const lists: ListPath[] = ['/customers', '/orders', '/products', '/loyalty-rewards', '/webhooks/{id}/events'];
  const reward: ListItemOf<'/loyalty-rewards'> | undefined = undefined;
  return { lists, reward };
}

export async function loyaltyRules() {
  const coupon = { type: 'freeShipping', maximumValueCents: null } as const;
  // Each section's config compiles, and the answer's config is the union of the section configs.
  const rule = await client.POST('/loyalty-rules', {
    body: { data: { section: 'rules', name: 'Spend', config: { type: 'orderSpend', pointsPerUnit: 1 } } },
  });
  await client.POST('/loyalty-rules', {
    body: { data: { section: 'rewards', name: 'Coupon', config: { pointsCost: 500, reward: coupon } } },
  });
  const config: Schemas['LoyaltyRule']['config'] = rule.config;
  if ('type' in config && config.type === 'orderSpend') {
    const points: number = config.pointsPerUnit;
    void points;
  }

  await client.POST('/loyalty-rules', {
    // @ts-expect-error an orderSpend config has pointsPerUnit, not pointsCost
    body: { data: { section: 'rules', name: 'Spend', config: { type: 'orderSpend', pointsCost: 1 } } },
  });
  await client.POST('/loyalty-rules', {
    // @ts-expect-error a claimable reward is never points
    body: { data: { section: 'rewards', name: 'x', config: { pointsCost: 5, reward: { type: 'points', amount: 1 } } } },
  });
  await client.POST('/loyalty-rules', {
    // @ts-expect-error stampsRequired is an integer, not text
    body: { data: { section: 'stampCards', name: 'Card', config: { stampsRequired: '10', reward: coupon } } },
  });
  await client.PATCH('/loyalty-rules/{id}', {
    params: { path: { id: rule.id } },
    // @ts-expect-error a config is one of the section configs, not any object
    body: { data: { config: { anything: true } } },
  });

  // A config for a given section: the wrong section's config is refused.
  const earning: RuleConfigOf<'rules'> = { type: 'event', eventName: 'signup', points: 10 };
  // @ts-expect-error a claimable config is not an earning rule's config
  const wrong: RuleConfigOf<'rules'> = { pointsCost: 500, reward: coupon };
  // @ts-expect-error an offer needs its window
  const offer: RuleConfigOf<'offers'> = { type: 'pointsMultiplier', multiplier: 2 };
  return { earning, wrong, offer };
}

export function webhookEvents(rawBody: string, headers: Headers) {
  // A verified delivery narrows by its event name to the record it carries.
  const event = verifyWebhook(rawBody, headers, 'a-secret-of-sixteen+');
  if (event.event === 'product.updated') {
    const slug: string = event.data.slug;
    // @ts-expect-error a product has no email
    void event.data.email;
    void slug;
  }
  if (event.event === 'loyaltyRule.created' || event.event === 'loyaltyRule.updated') {
    const section: 'rules' | 'rewards' | 'offers' | 'stampCards' = event.data.section;
    void section;
  }
  if (event.event === 'webhook.test') {
    const url: string = event.data.url;
    void url;
  }
  if (event.event === 'loyaltyPoints.expiringSoon') {
    const points: number = event.data.points;
    void points;
  }
  // @ts-expect-error product.created is not an event of the catalog
  if (event.event === 'product.created') return undefined;
  return event.idempotencyKey;
}

export async function versions() {
  // A client pinned to an older API version is typed from that version's document, as exactly as the newest.
  const old = createPatronClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'sk_test_x', apiVersion: '2026-11-20' });
  const version: '2026-11-20' = old.apiVersion;
  const tier = await old.POST('/loyalty-tiers', { body: { name: 'Gold', thresholdPoints: 500 } });
  const position: number = tier.position;
  // @ts-expect-error a threshold is a number at every version
  await old.POST('/loyalty-tiers', { body: { name: 'Gold', thresholdPoints: '500' } });
  // @ts-expect-error no such field in the tier body of 2026-11-20
  await old.POST('/loyalty-tiers', { body: { name: 'Gold', thresholdPoints: 500, rank: 1 } });
  // @ts-expect-error no such API version
  createPatronClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'sk_x', apiVersion: '2026-11-21' });
  // @ts-expect-error a client of 2026-11-20 is not a client of the newest version
  const newest: PatronClient<'2026-12-07'> = old;
  // The default is the newest version.
  const latest: PatronClient = createPatronClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'sk_x' });
  const named: '2026-12-07' = latest.apiVersion;
  // A deleted question is answered with its answers from 2026-12-01 on, and without them before.
  const questionId = '0190a0b0-0000-7000-8000-000000000001';
  const deleted = await latest.DELETE('/product-questions/{id}', { params: { path: { id: questionId } } });
  const answersDeleted: number = deleted.answersCount + deleted.answers.length;
  const deletedBefore = await old.DELETE('/product-questions/{id}', { params: { path: { id: questionId } } });
  // @ts-expect-error 2026-11-20 answered the question without its answers
  const noAnswers: unknown = deletedBefore.answers;
  return { version, position, newest, named, answersDeleted, noAnswers };
}
