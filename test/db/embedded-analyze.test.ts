/**
 * PGlite runs no autovacuum, so the embedded engine analyzes the database itself (src/db/embedded-analyze.ts): soon
 * after the start, then once enough rows changed and writes paused.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EmbeddedAnalyzer } from '../../src/db/embedded-analyze.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('EmbeddedAnalyzer', () => {
  it('analyzes after the start, then after enough changed rows once writes pause', async () => {
    vi.useFakeTimers();
    const analyze = vi.fn(async () => {});
    const analyzer = new EmbeddedAnalyzer(analyze);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(analyze).toHaveBeenCalledTimes(1);

    analyzer.rowsChanged(100);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(analyze).toHaveBeenCalledTimes(1);

    analyzer.rowsChanged(450);
    await vi.advanceTimersByTimeAsync(1_000);
    analyzer.rowsChanged(10); // still writing: waits for the pause
    await vi.advanceTimersByTimeAsync(1_500);
    expect(analyze).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(500);
    expect(analyze).toHaveBeenCalledTimes(2);
    await analyzer.close();
  });

  it('does not wait for a pause longer than 30 s under steady writes', async () => {
    vi.useFakeTimers();
    const analyze = vi.fn(async () => {});
    const analyzer = new EmbeddedAnalyzer(analyze);
    await vi.advanceTimersByTimeAsync(1_000);
    for (let second = 0; second < 31; second++) {
      analyzer.rowsChanged(600);
      await vi.advanceTimersByTimeAsync(1_000);
    }
    expect(analyze).toHaveBeenCalledTimes(2);
    await analyzer.close();
  });

  it('runs nothing after close', async () => {
    vi.useFakeTimers();
    const analyze = vi.fn(async () => {});
    const analyzer = new EmbeddedAnalyzer(analyze);
    await analyzer.close();
    analyzer.rowsChanged(10_000);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(analyze).not.toHaveBeenCalled();
  });
});
