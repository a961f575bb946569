/**
 * Enrols a customer in the loyalty program and issues a reward by hand; shows how a refused request is reported.
 *
 *   PATRON_KEY=sk_… node --import tsx clients/typescript/examples/rewards.ts
 */
import { createPatronClient, PatronError } from '@patron/client';

const client = createPatronClient({
  baseUrl: process.env.PATRON_URL ?? 'http://127.0.0.1:3000',
  apiKey: process.env.PATRON_KEY ?? '',
  // 429 and 503 are retried by default (3 times, honouring Retry-After); this logs each wait.
  retry: { onRetry: ({ status, delayMs }) => console.log(`HTTP ${status}: retrying in ${delayMs} ms`) },
});

const [customer] = (
  await client.POST('/customers/import', { body: { data: [{ email: 'rewarded@example.com', firstName: 'Rita' }] } })
).data;
// Joining answers 201 for a new member and 200 with the same membership for a returning one.
const membership = await client.POST('/loyalty-memberships', { body: { data: { customerId: customer!.id } } });

// Every POST carries an Idempotency-Key (one is generated unless given), so retrying it cannot issue twice.
const reward = await client.POST('/loyalty-rewards', {
  body: {
    data: {
      loyaltyMembershipId: membership.id,
      reward: {
        type: 'amountCoupon',
        amountCents: 500,
        productFilter: null,
        minimumOrderTotalCents: 2_000,
        expiry: { type: 'daysAfterIssuance', days: 30 },
      },
      reason: 'Sorry for the late delivery',
    },
  },
});
console.log(`issued ${reward.reward.type} reward ${reward.id} (${reward.status}), code ${reward.code ?? 'none'}`);

try {
  await client.POST('/loyalty-rewards/{id}/revoke', {
    params: { path: { id: crypto.randomUUID() } },
    body: { reason: 'No such reward' },
  });
} catch (error) {
  if (!(error instanceof PatronError)) throw error;
  // status, code, message, details ({ path, message } each) and the request id to quote.
  console.log(`refused: HTTP ${error.status} ${error.code}: ${error.message} (request ${error.requestId})`);
}
