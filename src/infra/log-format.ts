/** How log lines are written: `json`, one object a line (for collectors), or `pretty`, for a person at a terminal. */
export type LogFormat = 'json' | 'pretty';

const LEVEL_WIDTH = 5;
/** Fields every line has, shown in the line's head instead of among its fields. */
const HEAD_FIELDS = new Set(['time', 'level', 'msg', 'requestId', 'err']);

const fieldValue = (value: unknown) =>
  typeof value === 'string' && !/\s|=/.test(value) ? value : JSON.stringify(value);

/**
 * One pino JSON line as a person reads it: `03:04:05.678 INFO  [request id] message key=value …`,
 * an error's stack on the lines after. A line that is not JSON is passed on as it is.
 */
export function prettyLine(json: string): string {
  let line: Record<string, unknown>;
  try {
    line = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = typeof line.time === 'string' ? line.time.slice(11, 23) : '';
  const level = String(line.level ?? '')
    .toUpperCase()
    .padEnd(LEVEL_WIDTH);
  const request = line.requestId ? `[${String(line.requestId)}] ` : '';
  const fields = Object.entries(line)
    .filter(([key]) => !HEAD_FIELDS.has(key))
    .map(([key, value]) => ` ${key}=${fieldValue(value)}`)
    .join('');
  const err = line.err as { stack?: string; message?: string } | undefined;
  const stack = err ? `\n    ${(err.stack ?? err.message ?? JSON.stringify(err)).split('\n').join('\n    ')}` : '';
  return `${time} ${level} ${request}${String(line.msg ?? '')}${fields}${stack}\n`;
}
