import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The typed client's suite (clients/typescript) runs with the server's: it starts the server in-process.
    include: ['test/**/*.test.ts', 'clients/typescript/test/**/*.test.ts'],
    // The hardening suites take minutes: `npm run test:hardening` (vitest.hardening.config.ts).
    exclude: [...configDefaults.exclude, 'test/hardening/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: more workers than that only adds contention (each file starts its own database).
    maxWorkers: 2,
  },
});
