import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.js';

describe('planned ids (the demo seed)', () => {
  it('hands out the planned ids in order, then fresh ones, and leaves async hooks off once the last scope ends', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'test/support/planned-ids-probe.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const probe = JSON.parse(run.stdout) as {
      before: boolean;
      during: boolean;
      after: boolean;
      inside: string[];
      afterId: string;
      again: string;
      afterAgain: boolean;
    };
    // The nested scope takes its own list; the outer one goes on with its own after it.
    expect(probe.inside.slice(0, 3)).toEqual(['planned-1', 'planned-2', 'planned-3']);
    expect(probe.inside[3]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(probe.afterId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(probe.again).toBe('planned-4');
    expect(probe).toMatchObject({ before: false, during: true, after: false, afterAgain: false });
  });
});
