import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The typed client's suite (clients/typescript) runs with the server's: it starts the server in-process.
    include: ['test/**/*.test.ts', 'clients/typescript/test/**/*.test.ts'],
    // The hardening suites take minutes: `npm run test:hardening` (vitest.hardening.config.ts). The browser suites each
    // run a serve process and Chromium for minutes, and beside them the CLI's process tests timed out: they run one at
    // a time in `npm run test:browser` (vitest.browser.config.ts).
    exclude: [...configDefaults.exclude, 'test/hardening/**', 'test/browser/**'],
    // Builds the server when src/ is newer (the CLI's process tests run the build) and migrates one database that
    // every test copies (test/support/global-setup.ts).
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Each worker imports the server's modules once for all its files rather than once a file: the import was most of
    // a small file's time (docs/journal/2026-12-07-ci-under-25-minutes.md). Tests share no module state but what an
    // app holds, and every file closes the apps it opens.
    isolate: false,
    // Each run prints its slowest files and writes every file's duration to test-results/ (gitignored).
    reporters: ['default', ['./test/support/durations-reporter.ts', { suite: 'npm-test' }]],
    // Two cores: more workers than that only adds contention (each file starts its own database).
    maxWorkers: 2,
  },
});
