import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Logger } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogArguments = Parameters<FastifyBaseLogger['info']>;

/**
 * A request's logger that binds the request id only once something is logged. Fastify gives every request a child
 * logger, and pino's `child()` serializes the bindings at once, about 2.4 µs of every request in a profile of the
 * product page, although at LOG_LEVEL=warn a request that succeeds logs nothing
 * (docs/journal/2026-11-29-faster-machine-layers-per-statement.md). What is logged, and with which bindings, is
 * unchanged (docs/api.md#request-logs).
 */
class RequestLogger {
  #bound: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private bind(): FastifyBaseLogger {
    return (this.#bound ??= this.parent.child(this.bindings, this.options) as unknown as FastifyBaseLogger);
  }

  get level(): string {
    return this.#bound?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.bind().level = level;
  }

  isLevelEnabled(level: string): boolean {
    if (this.#bound) return (this.#bound as unknown as Logger).isLevelEnabled(level);
    const values = this.parent.levels.values;
    return (values[level] ?? Infinity) >= (values[this.level] ?? Infinity);
  }

  private write(level: Level, args: LogArguments): void {
    if (!this.isLevelEnabled(level)) return;
    const bound = this.bind() as unknown as Record<Level, (...args: LogArguments) => void>;
    bound[level](...args);
  }

  fatal(...args: LogArguments): void {
    this.write('fatal', args);
  }
  error(...args: LogArguments): void {
    this.write('error', args);
  }
  warn(...args: LogArguments): void {
    this.write('warn', args);
  }
  info(...args: LogArguments): void {
    this.write('info', args);
  }
  debug(...args: LogArguments): void {
    this.write('debug', args);
  }
  trace(...args: LogArguments): void {
    this.write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.bind().child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: every request's logger is a RequestLogger over the server's pino logger. */
export const lazyRequestLogger = (
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger =>
  // Without a pino logger (`logger: false` gives Fastify's silent one) a child is as cheap as it gets already.
  'levels' in logger
    ? (new RequestLogger(logger as unknown as Logger, bindings, options) as unknown as FastifyBaseLogger)
    : logger.child(bindings, options);
