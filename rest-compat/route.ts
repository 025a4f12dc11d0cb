import type { IncomingHttpHeaders } from 'node:http';
import type { ErrorCode } from '../src/kernel/errors';

/** What a route's variable mapping sees of the HTTP request. */
export interface RestRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON for JSON routes; undefined when the request had no body. */
  body: unknown;
}

/** Lets a response mapping set headers (e.g. the session token) besides the body. */
export interface RestReply {
  header(name: string, value: string): void;
}

/**
 * One legacy REST operation: the GraphQL operation it runs, how the HTTP request becomes its
 * variables and how its data becomes the legacy JSON. Routes hold no rules; services do.
 */
export interface RestRoute {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  document: string;
  variables?: (request: RestRequest) => Record<string, unknown>;
  /** The legacy body for the operation's data; undefined sends an empty body. May throw AppError. */
  respond?: (data: Record<string, unknown>, reply: RestReply, request: RestRequest) => unknown;
  status: number;
  /**
   * Treat unusable credentials as none instead of answering 401: for operations that do not act
   * as the caller (sign-up, logins) and for logout, which always succeeds.
   */
  lenientCredentials?: boolean;
  /** Wire quirks of this operation (e.g. user deletion answers 401 where others answer 403). */
  errorStatus?: Partial<Record<ErrorCode, number>>;
}
