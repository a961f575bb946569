/**
 * Imports a few customers, then walks every customer of the organization with paginate().
 *
 *   PATRON_KEY=sk_… node --import tsx clients/typescript/examples/customers.ts
 */
import { createPatronClient } from '@patron/client';

const client = createPatronClient({
  baseUrl: process.env.PATRON_URL ?? 'http://127.0.0.1:3000',
  apiKey: process.env.PATRON_KEY ?? '',
});

// Import creates or updates by email; the body is typed from the API document.
const imported = await client.POST('/customers/import', {
  body: {
    data: [
      { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', tags: ['vip'] },
      { email: 'grace@example.com', firstName: 'Grace', lastName: 'Hopper' },
      { email: 'alan@example.com', firstName: 'Alan', lastName: 'Turing', tags: ['vip'] },
    ],
  },
});
console.log(`imported ${imported.data.length} customers`);

// Every page, 250 records at a time, following nextCursor; the filter is a JSON filter document (docs/api.md).
let count = 0;
for await (const customer of client.paginate('/customers', {
  params: { query: { limit: 250, sort: 'email', filter: JSON.stringify({ 'tags.name': 'vip' }) } },
})) {
  count++;
  console.log(`${customer.email}\t${customer.firstName ?? ''} ${customer.lastName ?? ''}`);
}
console.log(`${count} VIP customers`);
