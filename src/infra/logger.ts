import { AsyncLocalStorage } from 'node:async_hooks';
import pino, { type Logger } from 'pino';
import { prettyLine, type LogFormat } from './log-format';

/** Carries the request id through every await so each log line of a request names it. */
export interface RequestScope {
  requestId: string;
  sqlStatements: number;
  /** A transaction committed while serving the request: its later reads go to the primary (replicas.ts). */
  wrote?: boolean;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();

/**
 * A token wherever it may turn up in a logged path or URL (`GET /auth/token/{token}` names one):
 * a JWT (access and session tokens; its header is JSON, so its base64url starts "eyJ"), or a run
 * of 40 or more base64url characters (oidc-provider's opaque tokens and codes have 43). No id a
 * path names is that long: user, clinic and object ids have at most 36 characters.
 */
const TOKEN_SHAPED = /eyJ[\w-]*(?:\.[\w-]*){1,4}|[\w-]{40,}/g;

/**
 * Path segments that are secrets by where they stand, whatever their length: the confirmation key
 * of `PUT /confirm/accept/signup/{key}` has 32 characters, as long as an object id.
 */
const SECRET_SEGMENT = /(\/confirm\/accept\/signup\/)[^/?#]+/g;

export const REDACTED = '[redacted]';

/** `text` with every token in it replaced by REDACTED. */
export const redactTokens = (text: string): string =>
  text.replace(SECRET_SEGMENT, `$1${REDACTED}`).replace(TOKEN_SHAPED, REDACTED);

/**
 * The fields of a log line that may hold a request's path or URL, whoever writes the line. Query
 * strings and headers are never logged (see requestedPath in src/http/request-context.ts).
 */
const URL_FIELDS = ['path', 'url'];

/** The line's fields with tokens redacted: a copy where one was, so the caller's object stays as it was. */
function withoutTokens(line: Record<string, unknown>): Record<string, unknown> {
  let redacted = line;
  for (const field of URL_FIELDS) {
    const value = line[field];
    if (typeof value !== 'string') continue;
    const clean = redactTokens(value);
    if (clean !== value) redacted = { ...redacted, [field]: clean };
  }
  return redacted;
}

/**
 * What `buffered` holds before writing: a busy service writes a line per request, and a write
 * call per line cost about 3% of a short request's CPU. A quiet one has its lines written within
 * LOG_FLUSH_MS; pino writes what is held when the process exits, crashes included.
 */
const LOG_BUFFER_BYTES = 4096;
const LOG_FLUSH_MS = 1000;

/**
 * Lines on stdout, in one format: JSON, or `pretty` (LOG_FORMAT). `buffered` (the service process)
 * writes them in the background, off the request path, a few kilobytes at a time; call
 * `logger.flush()` before exiting. `destination` takes the lines instead (tests).
 */
export function createLogger(
  level: string,
  {
    buffered = false,
    destination,
    format = 'json',
  }: { buffered?: boolean; destination?: pino.DestinationStream; format?: LogFormat } = {},
): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }), log: withoutTokens },
    mixin: () => {
      const scope = requestScope.getStore();
      return scope ? { requestId: scope.requestId } : {};
    },
  };
  const sink =
    destination ??
    pino.destination(
      buffered
        ? { dest: 1, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_MS }
        : { dest: 1, sync: true },
    );
  if (format === 'json') return pino(options, sink);
  // `flush` reaches stdout through it (logger.flush before exiting).
  const flush = (sink as { flush?: (done?: (error?: Error) => void) => void }).flush?.bind(sink);
  const pretty = {
    write: (line: string) => sink.write(prettyLine(line)),
    flush: (done?: (error?: Error) => void) => (flush ? flush(done) : done?.()),
  };
  return pino(options, pretty);
}

export type { Logger };
