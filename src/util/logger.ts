/** The part of pino that background work logs through: Fastify's logger in `serve`, a plain pino in the CLI. */
export interface Logger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}
