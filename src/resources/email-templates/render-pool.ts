import { availableParallelism } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { RENDER_TIME_LIMIT_MS } from './engine.js';
import type { RenderOutcome, RenderTask } from './render-worker.js';

/**
 * Every render of a tenant's template (preview, the check when saved, a mail being queued) runs on a thread of this
 * pool, never on the request thread, so one organization's heavy template cannot stall another's requests
 * (docs/api.md#rendering-limits).
 */

/** Renders of one organization running at once; the rest wait their turn. */
export const RENDERS_PER_ORGANIZATION = 2;
/** Renders of one organization that may wait for a turn before a request's render is refused with 429. */
export const RENDERS_WAITING_PER_ORGANIZATION = 8;
/**
 * One more thread than an organization may use, so that another organization's render never waits for a storm of one;
 * one a core beyond that, four at most.
 */
const THREADS = Math.min(4, Math.max(RENDERS_PER_ORGANIZATION + 1, availableParallelism()));
/**
 * Liquid stops a render at its time limit; should a render ever run where Liquid does not look at the clock, its
 * thread is terminated this long after the render started on it.
 */
const HARD_STOP_MS = RENDER_TIME_LIMIT_MS + 1_000;

// Built from TypeScript sources (the tests), the worker is the .ts file next to this one, loaded through tsx.
const fromSources = import.meta.url.endsWith('.ts');
const workerFile = new URL(fromSources ? './render-worker.ts' : './render-worker.js', import.meta.url).href;

let pool: Piscina<RenderTask, RenderOutcome> | undefined;
let holders = 0;

function threads(): Piscina<RenderTask, RenderOutcome> {
  pool ??= new Piscina<RenderTask, RenderOutcome>({
    filename: workerFile,
    ...(fromSources ? { execArgv: ['--import', 'tsx'] } : {}),
    minThreads: 0,
    maxThreads: THREADS,
    // An idle thread ends after a minute; piscina also unrefs idle threads, so none keeps a process alive.
    idleTimeout: 60_000,
    // Render threads yield the CPU to the request thread (Linux; elsewhere a no-op).
    niceIncrement: 10,
    resourceLimits: { maxOldGenerationSizeMb: 128 },
  });
  return pool;
}

/**
 * Each app holds the pool while it is open and lets go when it closes; the last to let go ends its threads. Tests open
 * and close many apps in one process, and a render outside any app (a CLI job) opens the pool on first use.
 */
export function holdRenderPool(): () => Promise<void> {
  holders += 1;
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    holders -= 1;
    if (holders > 0 || !pool) return;
    const closing = pool;
    pool = undefined;
    await closing.destroy();
  };
}

/** A FIFO of turns: `size` run at once, the others wait in order. */
class Turns {
  private running = 0;
  private readonly queue: (() => void)[] = [];
  constructor(private readonly size: number) {}

  get waiting(): number {
    return this.queue.length;
  }
  get idle(): boolean {
    return this.running === 0 && this.queue.length === 0;
  }
  async take(): Promise<void> {
    if (this.running < this.size) {
      this.running += 1;
      return;
    }
    await new Promise<void>((resolve) => this.queue.push(resolve));
  }
  /** Hands the turn to the next in line, or frees it. */
  give(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.running -= 1;
  }
}

const organizationTurns = new Map<string, Turns>();
// Turns for the threads themselves: a render is handed to a thread only when one is free, so HARD_STOP_MS never counts
// time spent queued behind other organizations' renders.
const threadTurns = new Turns(THREADS);

/** Thrown when an organization already has its most renders running and waiting; the route answers 429. */
export class RenderQueueFull extends Error {}

/**
 * Renders a mail on the pool, within the organization's turns. `whenBusy: 'refuse'` (a request) throws
 * RenderQueueFull when the organization's queue is full; `'wait'` (a mail being queued) always waits its turn.
 */
export async function renderOnPool(
  organizationId: string,
  task: RenderTask,
  whenBusy: 'refuse' | 'wait',
): Promise<RenderOutcome> {
  let turns = organizationTurns.get(organizationId);
  if (!turns) organizationTurns.set(organizationId, (turns = new Turns(RENDERS_PER_ORGANIZATION)));
  if (whenBusy === 'refuse' && turns.waiting >= RENDERS_WAITING_PER_ORGANIZATION) throw new RenderQueueFull();
  await turns.take();
  try {
    await threadTurns.take();
    try {
      return await runOnThread(task);
    } finally {
      threadTurns.give();
    }
  } finally {
    turns.give();
    if (turns.idle) organizationTurns.delete(organizationId);
  }
}

async function runOnThread(task: RenderTask): Promise<RenderOutcome> {
  // The clock of the hard stop starts when the thread takes the render, not before: a thread's start is not the
  // render's time.
  const stop = new AbortController();
  const { port1: told, port2: started } = new MessageChannel();
  let timer: NodeJS.Timeout | undefined;
  told.once('message', () => (timer = setTimeout(() => stop.abort(), HARD_STOP_MS)));
  try {
    return await threads().run({ ...task, started }, { signal: stop.signal, transferList: [started] });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_WORKER_OUT_OF_MEMORY') return { ok: false, limit: 'memory', message: 'out of memory' };
    if ((error as Error).name === 'AbortError') return { ok: false, limit: 'time', message: 'terminated' };
    throw error;
  } finally {
    clearTimeout(timer);
    told.close();
  }
}
