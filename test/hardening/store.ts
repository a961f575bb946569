/**
 * A small store for the process suites, created through a running server's API: one site, customers with a
 * loyalty membership each, and products with one variant each; and order import rows that reference them.
 */
import { expect } from 'vitest';
import { call } from './processes.js';

export interface Store {
  domain: string;
  emails: string[];
  slugs: string[];
  membershipIds: string[];
}

async function ok<T = any>(answer: Promise<{ status: number; body: T }>, status = 200): Promise<T> {
  const { status: got, body } = await answer;
  expect(got, JSON.stringify(body)).toBe(status);
  return body;
}

export async function seedStore(
  baseUrl: string,
  key: string,
  options: { name: string; customers: number; products: number },
): Promise<Store> {
  const domain = `${options.name}.example.com`;
  await ok(
    call(baseUrl, key, 'POST', '/v1/sites', { name: options.name, domain, platform: 'custom', currencyCode: 'USD' }),
    201,
  );
  const emails = Array.from({ length: options.customers }, (_, i) => `${options.name}-customer-${i}@example.com`);
  const slugs = Array.from({ length: options.products }, (_, i) => `${options.name}-product-${i}`);
  const membershipIds: string[] = [];
  for (let start = 0; start < emails.length; start += 1000) {
    const chunk = emails.slice(start, start + 1000);
    await ok(call(baseUrl, key, 'POST', '/v1/customers/import', { data: chunk.map((email) => ({ email })) }));
    const members = await ok<{ data: { id: string }[] }>(
      call(baseUrl, key, 'POST', '/v1/loyalty-memberships/import', {
        data: chunk.map((email) => ({ customer: email, pointsBalance: 100 })),
      }),
    );
    membershipIds.push(...members.data.map((member) => member.id));
  }
  await ok(
    call(baseUrl, key, 'POST', '/v1/products/import', {
      data: slugs.map((slug) => ({
        slug,
        title: `Product ${slug}`,
        variants: [{ slug: `${slug}-one`, title: 'One', priceCents: 1500, currencyCode: 'USD' }],
      })),
    }),
  );
  return { domain, emails, slugs, membershipIds };
}

/** `count` order import rows with remoteIds `<prefix>-<i>`, three items each. */
export function orderRows(store: Store, prefix: string, count: number) {
  return Array.from({ length: count }, (_, i) => {
    const items = [0, 1, 2].map((k) => ({
      product: store.slugs[(i + k * 7) % store.slugs.length]!,
      quantity: 1 + ((i + k) % 3),
      unitPriceCents: 1500,
    }));
    const subtotal = items.reduce((sum, item) => sum + item.quantity * item.unitPriceCents, 0);
    return {
      site: store.domain,
      customer: store.emails[i % store.emails.length]!,
      remoteId: `${prefix}-${i}`,
      number: `#${prefix}-${i}`,
      totalCents: subtotal + 500,
      subtotalCents: subtotal,
      shippingCents: 500,
      taxCents: 0,
      currencyCode: 'USD',
      metadata: { batch: prefix },
      items,
    };
  });
}
