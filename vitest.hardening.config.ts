import { defineConfig } from 'vitest/config';

/** The hardening suites (issue 8): long-running, so kept out of `npm test`. Run with `npm run test:hardening`. */
export default defineConfig({
  test: {
    include: [
      'test/hardening/**/*.test.ts',
      // The operator probes of docs/reliability.md that also run in `npm test`, here so this suite alone covers
      // every outage, slow client, start-up failure and dispatcher crash on the engine it is given.
      'test/http/outages.test.ts',
      'test/http/slow-clients.test.ts',
      'test/cli/serve.test.ts',
      'test/jobs/dispatcher-crash.test.ts',
    ],
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
