import { defineConfig } from 'vitest/config';

/**
 * The browser suites (test/browser: /docs and the dashboard in Debian's Chromium, each against a `patron serve` of its
 * own), one at a time: two at once, beside the rest of `npm test`, starved the CLI's process tests of the machine's
 * two cores. Run with `npm run test:browser`; skipped with their reason when /usr/bin/chromium is missing.
 */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // As in vitest.config.ts: builds the server when src/ is newer (the CLI's process tests run the build) and migrates
    // one database that every test copies (test/support/global-setup.ts).
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Each run prints its slowest files and writes every file's duration to test-results/ (gitignored).
    reporters: ['default', ['./test/support/durations-reporter.ts', { suite: 'browser' }]],
    maxWorkers: 1,
  },
});
