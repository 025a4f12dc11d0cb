import { AsyncLocalStorage } from 'node:async_hooks';
import pino, { type Logger } from 'pino';

/** Carries the request id through every await so each log line of a request names it. */
export interface RequestScope {
  requestId: string;
  sqlStatements: number;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin: () => {
      const scope = requestScope.getStore();
      return scope ? { requestId: scope.requestId } : {};
    },
  });
}

export type { Logger };
