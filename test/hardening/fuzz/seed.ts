import type { TestApp } from '../../support/app.js';

/** What one organization was seeded with, by the names the fuzzer uses as realistic references. */
export interface SeededOrganization {
  organizationId: string;
  key: string;
}

/**
 * Seeds an organization through the API itself (sites, then the import endpoints for customers, products, orders,
 * loyalty members and history; loyalty configuration, rewards and a webhook endpoint), so generated requests that
 * name real rows find them. `tag` keeps the two organizations' natural keys apart.
 */
export async function seedOrganization(
  t: TestApp,
  key: string,
  organizationId: string,
  tag: string,
): Promise<SeededOrganization> {
  const call = async (method: 'POST' | 'PATCH', url: string, body: unknown, expected = [200, 201]) => {
    const response = await t.request({ method, url: `/v1${url}`, key, body });
    if (!expected.includes(response.statusCode)) {
      throw new Error(`Seeding ${method} ${url} answered ${response.statusCode}: ${response.body.slice(0, 500)}`);
    }
    return response.json();
  };

  const sites: { id: string; domain: string }[] = [];
  for (const [name, currency] of [
    ['shop', 'EUR'],
    ['outlet', 'USD'],
  ] as const) {
    sites.push(
      await call('POST', '/sites', {
        data: { name: `${name} ${tag}`, domain: `${name}-${tag}.example`, platform: 'shopify', currencyCode: currency },
      }),
    );
  }
  const customers = Array.from({ length: 8 }, (_, i) => ({
    email: `customer${i}-${tag}@example.com`,
    firstName: ['Ann', 'Bob', 'Cleo', 'Dan', 'Eve', 'Finn', 'Gus', 'Hana'][i],
    lastName: i % 2 ? 'Smith' : 'Zimmer',
    phone: `+4915550${tag.length}${i}00${i}`,
    country: i % 2 ? 'DE' : 'US',
    birthday: `0${(i % 9) + 1}-1${i}`,
    metadata: { channel: i % 2 ? 'web' : 'pos', rank: String(i) },
    tags: i % 3 ? ['vip'] : ['new', 'sale'],
    emailOptOut: i === 5,
  }));
  await call('POST', '/customers/import', { data: customers });
  const products = Array.from({ length: 6 }, (_, i) => ({
    slug: `product-${i}`,
    title: `Product ${i} ${tag}`,
    description: 'A thing',
    metadata: { color: i % 2 ? 'red' : 'blue' },
    tags: i % 2 ? ['sale'] : ['summer', 'new'],
    sites: [sites[i % 2]!.id],
    variants:
      i === 5
        ? []
        : [
            { slug: 'small', title: 'Small', priceCents: 1000 + i, currencyCode: 'EUR', available: true },
            ...(i % 2
              ? [{ slug: 'large', title: 'Large', priceCents: 2000 + i, currencyCode: 'EUR', available: false }]
              : []),
          ],
  }));
  await call('POST', '/products/import', { data: products });
  const orders = Array.from({ length: 8 }, (_, i) => ({
    site: sites[i % 2]!.domain,
    customer: customers[i % customers.length]!.email,
    remoteId: `R-${i}`,
    number: `#${1000 + i}`,
    totalCents: 1500 * (i + 1),
    subtotalCents: 1400 * (i + 1),
    shippingCents: 100,
    taxCents: 0,
    metadata: { source: i % 2 ? 'app' : 'web' },
    tags: i % 2 ? ['gift'] : [],
    ...(i === 3 ? { shippedAt: '2026-01-02T03:04:05Z' } : {}),
    items: [{ product: `product-${i % 5}`, variant: 'small', quantity: 1 + (i % 3), unitPriceCents: 1000 }],
  }));

  await call('POST', '/loyalty-tiers', { data: { name: 'Silver', thresholdPoints: 100 } });
  await call('POST', '/loyalty-tiers', { data: { name: 'Gold', thresholdPoints: 5000 } });
  const claimable = await call('POST', '/loyalty-rules', {
    data: {
      section: 'rewards',
      name: 'Five off',
      config: {
        pointsCost: 50,
        reward: { type: 'amountCoupon', amountCents: 500, productFilter: null, minimumOrderTotalCents: null },
      },
    },
  });
  await call('POST', '/loyalty-rules', {
    data: { section: 'rules', name: 'Spend', config: { type: 'orderSpend', pointsPerUnit: 1 } },
  });
  await call('POST', '/loyalty-rules', {
    data: {
      section: 'rules',
      name: 'Signup',
      config: { type: 'event', eventName: 'signup', points: 25, frequency: 'unlimited' },
    },
  });
  await call('POST', '/loyalty-rules', {
    data: {
      section: 'stampCards',
      name: 'Coffee',
      config: { stampsRequired: 3, reward: { type: 'freeShipping', maximumValueCents: null } },
    },
  });

  const members = await call('POST', '/loyalty-memberships/import', {
    data: customers.slice(0, 6).map((customer, i) => ({ customer: customer.email, pointsBalance: 200 * (i + 1) })),
  });
  // Orders after the members, so the import earns points and stamps.
  await call('POST', '/orders/import', { data: orders });
  const memberIds: string[] = members.data.map((member: { id: string }) => member.id);
  await call('POST', '/loyalty-history', {
    data: memberIds.slice(0, 3).map((loyaltyMembershipId, i) => ({
      loyaltyMembershipId,
      kind: 'earned',
      points: 10 + i,
      createdAt: '2025-06-01T00:00:00Z',
      key: `h-${i}`,
    })),
  });
  for (const [i, loyaltyMembershipId] of memberIds.slice(0, 4).entries()) {
    await call('POST', '/loyalty-rewards', {
      data: {
        loyaltyMembershipId,
        reward: {
          type: 'percentageCoupon',
          percentageDiscount: 10 + i,
          productFilter: null,
          minimumOrderTotalCents: null,
        },
        reason: 'Seed',
      },
    });
  }
  await call('POST', `/loyalty-memberships/${memberIds[0]}/claim`, { loyaltyRuleId: claimable.id });
  await call('POST', `/loyalty-memberships/${memberIds[1]}/points-adjustments`, { points: 30, reason: 'Seed bonus' });
  await call('POST', '/loyalty-events', { event: 'signup', loyaltyMembershipId: memberIds[2] });
  await call('POST', '/loyalty-stamps', { loyaltyMembershipId: memberIds[3], stamps: 4 });
  await call('POST', `/loyalty-memberships/${memberIds[5]}/leave`, undefined);

  // Connection refused at once: a delivery record without any traffic leaving the machine.
  const webhook = await call('POST', '/webhooks', {
    data: {
      url: 'http://127.0.0.1:9/hook',
      events: ['order.updated', 'product.updated', 'customer.updated', 'loyaltyReward.issued'],
      hmacSecret: 'a-secret-of-16-chars',
    },
  });
  await call('POST', `/webhooks/${webhook.id}/test`, undefined);
  await call('PATCH', '/orders/bulk-update', { addTags: ['seeded'] });
  await call('POST', '/quick-filters', {
    data: { resource: 'customers', name: 'Gold customers', filter: { 'metadata.tier': 'gold' }, sort: 'email' },
  });
  await call('POST', '/email-templates', {
    data: {
      kind: 'rewardIssued',
      name: 'Reward issued',
      subject: 'A reward for you, {{ customer.firstName }}',
      html: '<p>Use <b>{{ reward.code }}</b> at {{ organization.name }}.</p>',
      text: 'Use {{ reward.code }}.',
    },
  });
  await call('POST', '/export-jobs', { resource: 'products', format: 'jsonl', include: 'variants' }, [202]);
  // Queued, never run here: its file is read as the request arrives, so it is sent as CSV rather than JSON.
  const upload = await t.request({
    method: 'POST',
    url: '/v1/import-jobs?resource=customers',
    key,
    body: 'email,firstName\nimported@example.com,Imported\n',
    headers: { 'content-type': 'text/csv' },
  });
  if (upload.statusCode !== 202)
    throw new Error(`Seeding POST /import-jobs answered ${upload.statusCode}: ${upload.body}`);
  await call('POST', '/wishlists/import', {
    data: customers.slice(0, 3).map((customer, i) => ({
      customer: customer.email,
      name: `Wishlist ${i}`,
      remoteId: `W-${i}`,
      metadata: { occasion: i % 2 ? 'birthday' : 'holidays' },
      items: [
        { product: `product-${i % 5}`, variant: 'small', note: 'In blue' },
        { product: `product-${(i + 1) % 5}` },
      ],
    })),
  });

  await call('POST', '/product-questions/import', {
    data: customers.slice(0, 4).map((customer, i) => ({
      product: `product-${i % 5}`,
      customer: customer.email,
      remoteId: `Q-${i}`,
      authorName: `Asker ${i}`,
      authorEmail: customer.email,
      body: `Question ${i}: does it come in blue?`,
      status: i % 2 ? 'published' : 'pending',
      answers: [{ body: 'Yes, in navy.', authorName: 'Shop' }],
    })),
  });

  // Reviews are optional seed: their resource is younger than the rest, and the fuzzer must run without it.
  const reviews = await t.request({
    method: 'POST',
    url: '/v1/reviews/import',
    key,
    body: {
      data: customers.slice(0, 6).map((customer, i) => ({
        product: 'product-1',
        customer: customer.email,
        rating: (i % 5) + 1,
        title: `Review ${i}`,
        body: 'Fine',
        published: i % 3 !== 0,
      })),
    },
  });
  if (reviews.statusCode !== 200 && reviews.statusCode !== 404)
    console.warn(`seeding reviews answered ${reviews.statusCode}: ${reviews.body.slice(0, 300)}`);
  return { organizationId, key };
}
