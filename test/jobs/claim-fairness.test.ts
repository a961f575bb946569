/**
 * Claiming is fair across organizations (src/jobs/runner/queue.ts, docs/api.md#job-runner): a due run of an
 * organization with no live run of the same job is claimed before the older due runs of one that has.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimJob, enqueue } from '../../src/jobs/runner/queue.js';
import { createOrganization } from '../../src/resources/organization/service.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let test: TestDatabase;
beforeAll(async () => {
  test = await createTestDatabase();
});
afterAll(() => test.drop());

const LEASE_MS = 60_000;

describe('claimJob', () => {
  it("takes another organization's due run before a busy organization's older ones, then the oldest due", async () => {
    const db = test.database.db;
    const busy = await createOrganization(db, { name: 'Busy' });
    const quiet = await createOrganization(db, { name: 'Quiet' });
    const start = Date.now() - 60_000;
    const at = (seconds: number) => new Date(start + seconds * 1000);
    for (const [index, key] of ['b1', 'b2', 'b3'].entries())
      await enqueue(db, { organizationId: busy.id, name: 'test.work', runKey: key, now: at(index) });
    await enqueue(db, { organizationId: quiet.id, name: 'test.work', runKey: 'q1', now: at(10) });
    await enqueue(db, { organizationId: busy.id, name: 'test.other', runKey: 'o1', now: at(20) });
    const now = new Date();

    // Nothing runs yet: the oldest due run goes first.
    const first = await claimJob(db, { owner: 'one', names: ['test.work', 'test.other'], now, leaseMs: LEASE_MS });
    expect(first?.run_key).toBe('b1');
    // Busy now has a live run of test.work: Quiet's run is taken before Busy's older ones, and a run of another
    // job of Busy's is not held back by it.
    const second = await claimJob(db, { owner: 'two', names: ['test.work', 'test.other'], now, leaseMs: LEASE_MS });
    expect(second?.run_key).toBe('q1');
    const third = await claimJob(db, { owner: 'three', names: ['test.work', 'test.other'], now, leaseMs: LEASE_MS });
    expect(third?.run_key).toBe('o1');
    // Only Busy's runs are left: they are still claimed, oldest first.
    const fourth = await claimJob(db, { owner: 'four', names: ['test.work'], now, leaseMs: LEASE_MS });
    expect(fourth?.run_key).toBe('b2');
  });
});
