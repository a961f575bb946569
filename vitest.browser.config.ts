import { defineConfig } from 'vitest/config';

/**
 * The browser suites (test/browser: /docs and the dashboard in Debian's Chromium, each against a `patron serve` of its
 * own), two files at a time in a step of their own: the /docs walk runs beside the dashboard's files, which wait on
 * the page more than on the cores (beside the rest of `npm test` they once starved the CLI's process tests, so they
 * stay out of it). Run with `npm run test:browser`; skipped with their reason when /usr/bin/chromium is missing.
 */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // As in vitest.config.ts: builds the server when src/ is newer (the CLI's process tests run the build) and migrates
    // one database that every test copies (test/support/global-setup.ts).
    globalSetup: ['test/support/global-setup.ts', 'test/browser/seeded-demo.ts'],
    pool: 'forks',
    // Each run prints its slowest files and writes every file's duration to test-results/ (gitignored).
    reporters: ['default', ['./test/support/durations-reporter.ts', { suite: 'browser' }]],
    maxWorkers: 2,
  },
});
