import type { TestApp } from '../app';

/**
 * What an answer must never name: a file path, the database's host and port, SQL, a stack.
 * A marker the request itself carried is not a leak (a stored name echoed back is the caller's own).
 */
export function leakMarkers(app: TestApp): { name: string; pattern: RegExp }[] {
  const database = new URL(app.database.url);
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return [
    { name: 'a file path', pattern: /\/work\/|\/tmp\/|node_modules|\.ts:\d|\.js:\d/ },
    { name: 'the data folder', pattern: new RegExp(escape(app.config.dataDir)) },
    { name: 'the database host', pattern: new RegExp(escape(database.host)) },
    { name: 'a database URL', pattern: /postgres(ql)?:\/\//i },
    { name: 'SQL', pattern: /\bselect\b[^"]{0,200}\bfrom\b|\binsert into\b|\bdelete from\b|\bupdate "?\w+"? set\b/i },
    { name: 'a PostgreSQL error', pattern: /relation "|syntax error at|violates \w+ constraint|invalid input syntax/i },
    { name: 'a stack', pattern: / {4}at |node:internal/ },
  ];
}

/** The markers found in `answer` (status line, headers and body as text) that `request` did not carry. */
export function leaksIn(markers: ReturnType<typeof leakMarkers>, answer: string, request: string): string[] {
  return markers
    .filter(({ pattern }) => pattern.test(answer) && !pattern.test(request))
    .map(({ name, pattern }) => `${name}: ${answer.match(pattern)![0]}`);
}
