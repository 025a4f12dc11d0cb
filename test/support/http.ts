import { expectMatchesIsletDescription } from './openapi';

/** A small HTTP client for the end-to-end suites: JSON in, parsed JSON (or text) out. */
export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  method?: string;
  token?: string;
  headers?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  body?: RequestInit['body'];
}

/** A response read whole: its body parsed as JSON, or kept as text when it is not JSON. */
export async function replyOf<T = any>(response: Response): Promise<Reply<T>> {
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

export async function call<T = any>(baseUrl: string, path: string, options: RequestOptions = {}): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body = options.body;
  if (options.token) headers['x-tidepool-session-token'] = options.token;
  if (options.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(options.json);
  }
  if (options.form) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  }
  const method = options.method ?? (body ? 'POST' : 'GET');
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body,
    redirect: 'manual',
  });
  const reply = await replyOf<T>(response);
  // Every reply is checked against Islet's OpenAPI description (and Tidepool's): a mismatch fails the test that asked.
  await expectMatchesIsletDescription(baseUrl, method, path, reply);
  return reply;
}

/** Runs a GraphQL operation at /graphql with an optional bearer token. */
export async function graphql(baseUrl: string, query: string, variables: Record<string, unknown> = {}, token?: string) {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  return call(baseUrl, '/graphql', {
    json: { query, variables },
    headers,
  });
}
