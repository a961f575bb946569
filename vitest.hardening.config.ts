import { defineConfig } from 'vitest/config';

/** The hardening suites (issue 8): long-running, so kept out of `npm test`. Run with `npm run test:hardening`. */
export default defineConfig({
  test: {
    // The operator probes of docs/reliability.md that are quick (outages, slow clients, start-up failures, a
    // dispatcher crash) run in `npm test` on the same engine: CI ran each of them twice per engine when they were here.
    include: ['test/hardening/**/*.test.ts'],
    testTimeout: 15 * 60_000,
    hookTimeout: 5 * 60_000,
    // As in vitest.config.ts: builds the server when src/ is newer (the CLI's process tests run the build) and migrates
    // one database that every test copies (test/support/global-setup.ts).
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Each run prints its slowest files and writes every file's duration to test-results/ (gitignored).
    reporters: ['default', ['./test/support/durations-reporter.ts', { suite: 'hardening' }]],
    // One suite at a time: their figures (time, throughput) mean something only on an otherwise quiet machine.
    maxWorkers: 1,
  },
});
