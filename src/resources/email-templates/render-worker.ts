/**
 * Renders one mail on a worker thread of the render pool (render-pool.ts), so that a heavy template spends its own
 * thread's time and never the request thread's (docs/api.md#rendering-limits). It imports only Liquid and the engine:
 * a thread starts quickly and holds nothing of the server.
 */
import { performance } from 'node:perf_hooks';
import type { MessagePort } from 'node:worker_threads';
import {
  engineOf,
  messageOf,
  RENDER_TIME_LIMIT_MS,
  RENDERED_MAIL_LIMIT_BYTES,
  TEMPLATE_PARTS,
  type RenderedMail,
  type RenderLimit,
  type TemplatePart,
  type TemplateSources,
} from './engine.js';

export interface RenderTask {
  sources: TemplateSources;
  variables: Record<string, unknown>;
  /** Told when the render starts on its thread: the pool's hard stop counts from then (render-pool.ts). */
  started?: MessagePort;
}

export type RenderOutcome =
  | { ok: true; rendered: RenderedMail }
  /**
   * `limit` when a bound stopped it, otherwise Liquid refused it (a bad filter argument) and `message` says why; `part`
   * unless the thread was stopped from outside.
   */
  | { ok: false; part?: TemplatePart; limit?: RenderLimit; message: string };

/** Liquid's own limit errors, by the start of their message (liquidjs Limiter: `<resource> limit exceeded`). */
function limitOf(message: string): RenderLimit | undefined {
  if (message.startsWith('template render limit exceeded')) return 'time';
  if (message.startsWith('memory alloc limit exceeded')) return 'memory';
  return undefined;
}

export default async function renderMail({ sources, variables, started }: RenderTask): Promise<RenderOutcome> {
  started?.postMessage('started');
  started?.close();
  // One deadline for the three parts: the limit is the mail's, not each part's.
  const deadline = performance.now() + RENDER_TIME_LIMIT_MS;
  const rendered = {} as RenderedMail;
  let bytes = 0;
  for (const part of TEMPLATE_PARTS) {
    const remaining = Math.floor(deadline - performance.now());
    if (remaining <= 0) return { ok: false, part, limit: 'time', message: 'template render limit exceeded' };
    try {
      const engine = engineOf(part);
      rendered[part] = String(await engine.render(engine.parse(sources[part]), variables, { renderLimit: remaining }));
    } catch (error) {
      const message = messageOf(error);
      const limit = limitOf(message);
      return { ok: false, part, message, ...(limit ? { limit } : {}) };
    }
    bytes += Buffer.byteLength(rendered[part]);
    if (bytes > RENDERED_MAIL_LIMIT_BYTES) {
      return { ok: false, part, limit: 'output', message: 'rendered mail limit exceeded' };
    }
  }
  // A subject is a header: a line break in a variable must not start another header line.
  rendered.subject = rendered.subject.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  return { ok: true, rendered };
}
