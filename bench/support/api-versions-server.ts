// The server bench/api-versions.ts measures: Patron's composition root on the embedded engine, with the version layer
// (the default) or without it (BENCH_VERSION_LAYER=off, the floor; an option of createRuntime, not an operator
// setting). It makes its own organization and key, imports BENCH_PRODUCTS products, writes the key to
// BENCH_KEY_FILE, and serves on PORT until SIGTERM.
import { writeFile } from 'node:fs/promises';
import { createKey } from '../../src/auth/keys.js';
import { createOrganization, createRuntime } from '../../src/compose.js';
import { loadConfig } from '../../src/config/index.js';

const config = loadConfig();
const runtime = await createRuntime(config, {
  logger: false,
  ...(process.env.BENCH_VERSION_LAYER === 'off' ? { versions: false as const } : {}),
});
const organization = await createOrganization(runtime.database.db, {
  name: 'Versions bench',
  apiRequestsPerMinute: 100_000_000,
});
const { key } = await createKey(runtime.database.db, { organizationId: organization.id, permissions: ['all'] });
const products = Number(process.env.BENCH_PRODUCTS ?? 50);
const imported = await runtime.app.inject({
  method: 'POST',
  url: '/v1/products/import',
  headers: { authorization: `Bearer ${key}` },
  payload: {
    data: Array.from({ length: products }, (_, i) => ({ slug: `product-${i}`, title: `Product ${i}` })),
  },
});
if (imported.statusCode !== 200) throw new Error(`import: ${imported.statusCode} ${imported.body}`);
await writeFile(process.env.BENCH_KEY_FILE!, key);
await runtime.app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.once('SIGTERM', () => void runtime.close().then(() => process.exit(0)));
