/**
 * Whether an error means "PostgreSQL cannot be reached or refused the connection" (as opposed to
 * a bug, a constraint or a value it cannot store): such failures answer 503, not 500. A
 * statement PostgreSQL refused (08P01 protocol violation, such as text with a NUL; any data
 * exception of class 22) came from a server that answered, so it is never an outage.
 */
const UNAVAILABLE_SQLSTATE = /^(08(?!P01)|57P0[1-3]|53300|55000)/;
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection timeout|Client has encountered a connection error|not queryable/i;

/** SQLSTATEs of statements PostgreSQL refused for a value: data exceptions (class 22). */
const DATA_EXCEPTION = /^22[0-9A-Z]{3}$/;

type Failure = { code?: unknown; sqlState?: unknown; message?: unknown; cause?: unknown } | undefined;

/** The error and its causes, outermost first (MikroORM wraps the driver's error). */
function* chain(error: unknown): Generator<NonNullable<Failure>> {
  const seen = new Set<unknown>();
  for (let current = error as Failure; current && !seen.has(current); current = current.cause as Failure) {
    seen.add(current);
    yield current;
  }
}

const sqlStateOf = (failure: NonNullable<Failure>) =>
  typeof failure.sqlState === 'string' ? failure.sqlState : typeof failure.code === 'string' ? failure.code : '';

export function isDatabaseUnavailable(error: unknown): boolean {
  if (isRefusedValue(error)) return false;
  for (const current of chain(error)) {
    const code = typeof current.code === 'string' ? current.code : '';
    if (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_NODE_CODES.has(code)) return true;
    if (typeof current.message === 'string' && UNAVAILABLE_MESSAGES.test(current.message)) return true;
  }
  return false;
}

/**
 * Whether PostgreSQL refused a statement for one of its values (class 22: a date-time out of
 * range, an invalid byte sequence, a number too large): the request's fault, whatever the
 * message says, although the service should have refused the value before sending it.
 */
export function isRefusedValue(error: unknown): boolean {
  for (const current of chain(error)) if (DATA_EXCEPTION.test(sqlStateOf(current))) return true;
  return false;
}
