/**
 * What `patron import` and `patron export` print off a terminal (docs/api.md#importing-from-the-command-line): a plain
 * line every few seconds saying how far the phase has come, never a rate. The clock is the test's, so the interval is
 * exact without waiting for it; the CLI's own output is checked through the real process in import.test.ts.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgress, formatBytes, PLAIN_EVERY_MS } from '../../src/cli/progress.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  return { lines, stream };
}

describe('progress off a terminal', () => {
  it('writes "uploading: 12.3 MB of 40.0 MB (31%)", at most one line per interval, with no rate', () => {
    const { lines, stream } = capture();
    let now = 1_000_000;
    const progress = createProgress(stream, false, () => now);
    progress.phase('uploading', 40_000_000, 'bytes');
    progress.update(65_536);
    // Many chunks within one interval write nothing more.
    for (let bytes = 131_072; bytes < 12_300_000; bytes += 65_536) progress.update(bytes);
    now += PLAIN_EVERY_MS;
    progress.update(12_300_000);
    now += PLAIN_EVERY_MS - 1;
    progress.update(20_000_000);
    now += 1;
    progress.update(40_000_000);
    progress.done('Sent 40,000,000 bytes; the server is reading them into rows…');
    expect(lines).toEqual([
      'uploading: 65.5 kB of 40.0 MB (0%)',
      'uploading: 12.3 MB of 40.0 MB (30%)',
      'uploading: 40.0 MB of 40.0 MB (100%)',
      'Sent 40,000,000 bytes; the server is reading them into rows…',
    ]);
    expect(lines.join('\n')).not.toMatch(/\/s\b|left/);
  });

  it('counts rows with separators, learns a total late, and says only the amount without one', () => {
    const { lines, stream } = capture();
    let now = 0;
    const progress = createProgress(stream, false, () => now);
    progress.phase('importing', null, 'rows');
    progress.update(1200);
    now += PLAIN_EVERY_MS;
    progress.update(2500, 5000);
    progress.phase('downloading', null, 'bytes');
    progress.update(3_400_000);
    expect(lines).toEqual(['importing: 1,200 rows', 'importing: 2,500 of 5,000 rows (50%)', 'downloading: 3.4 MB']);
  });

  it('formats bytes in decimal units', () => {
    expect([0, 999, 1000, 12_345, 999_949, 999_950, 1_500_000_000].map(formatBytes)).toEqual([
      '0 B',
      '999 B',
      '1.0 kB',
      '12.3 kB',
      '999.9 kB',
      '1.0 MB',
      '1.5 GB',
    ]);
  });
});
