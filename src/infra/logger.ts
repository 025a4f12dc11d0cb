import { AsyncLocalStorage } from 'node:async_hooks';
import pino, { type Logger } from 'pino';

/** Carries the request id through every await so each log line of a request names it. */
export interface RequestScope {
  requestId: string;
  sqlStatements: number;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();

/**
 * JSON lines on stdout. `buffered` (the service process) writes them in the background, off the
 * request path; call `logger.flush()` before exiting. `destination` takes the lines instead (tests).
 */
export function createLogger(
  level: string,
  { buffered = false, destination }: { buffered?: boolean; destination?: pino.DestinationStream } = {},
): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin: () => {
      const scope = requestScope.getStore();
      return scope ? { requestId: scope.requestId } : {};
    },
  };
  if (destination) return pino(options, destination);
  return buffered ? pino(options, pino.destination({ dest: 1, sync: false })) : pino(options);
}

export type { Logger };
