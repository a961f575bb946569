/**
 * The planner's statistics on the embedded engine. PostgreSQL keeps them fresh with autovacuum's ANALYZE; PGlite runs
 * no autovacuum and keeps no table activity counts, so a table is never analyzed and the planner guesses: the orders
 * page with a tag filter (docs/journal/2026-11-28-embedded-engine.md) went through a nested loop comparing every tagged
 * order with every order, ~0.5 s for 2,000 orders, where analyzed statistics choose a plan a hundred times cheaper.
 * This stands in for autovacuum: the PGlite connection reports the rows each statement changed, and once enough
 * have changed the whole database is analyzed (sampled, so its cost is bounded per table) after writes pause; once
 * also soon after the start, for what earlier runs wrote. ANALYZE changes no data, so no answer changes, only plans.
 */

/** Rows changed since the last ANALYZE that call for another: autovacuum's base threshold is 50 rows per table. */
const ROWS_BEFORE_ANALYZE = 500;
/** Writes usually come in bursts (an import's batches): ANALYZE runs once they pause this long… */
const QUIET_MS = 2_000;
/** …or at the latest this long after the threshold was crossed, under steady writes. */
const LATEST_MS = 30_000;
/** After the start, for what earlier runs wrote (and were not analyzed for: the counts are not kept). */
const FIRST_ANALYZE_MS = 1_000;

export class EmbeddedAnalyzer {
  private changedRows = 0;
  private timer: NodeJS.Timeout | undefined;
  private due = Infinity;
  private running: Promise<void> | undefined;
  private closed = false;

  /** `analyze` runs ANALYZE on the database, queued like any other statement. */
  constructor(private readonly analyze: () => Promise<void>) {
    this.schedule(FIRST_ANALYZE_MS);
  }

  /** Called by the connection with the rows a statement inserted, updated or deleted. */
  rowsChanged(count: number): void {
    if (count <= 0 || this.closed) return;
    this.changedRows += count;
    if (this.changedRows < ROWS_BEFORE_ANALYZE) return;
    if (this.due === Infinity) this.due = Date.now() + LATEST_MS;
    this.schedule(Math.min(QUIET_MS, Math.max(0, this.due - Date.now())));
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(), delayMs);
    // A server keeps running anyway; a CLI command or a test must be free to end before it fires.
    this.timer.unref();
  }

  private async run(): Promise<void> {
    if (this.closed || this.running) return;
    this.changedRows = 0;
    this.due = Infinity;
    this.running = this.analyze()
      .catch(() => {
        // Statistics are an optimisation: a failed ANALYZE (the database closing) leaves the old ones.
      })
      .finally(() => (this.running = undefined));
    await this.running;
  }

  /** Stops scheduling and waits for an ANALYZE in progress, before the database closes. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
