/**
 * Whether an error means "PostgreSQL cannot be reached or refused the connection" (as opposed to
 * a bug or a constraint): such failures answer 503, not 500.
 */
const UNAVAILABLE_SQLSTATE = /^(08|57P0[1-3]|53300|55000)/;
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection timeout|Client has encountered a connection error|not queryable/i;

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined; current;) {
    const code = typeof current.code === 'string' ? current.code : '';
    if (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_NODE_CODES.has(code)) return true;
    if (typeof current.message === 'string' && UNAVAILABLE_MESSAGES.test(current.message)) return true;
    current = current.cause as typeof current;
  }
  return false;
}
