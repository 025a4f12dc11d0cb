import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { ErrorCode } from '../src/kernel/errors';
import type { Scope } from '../src/kernel/scope';
import type { Services } from '../src/service-catalog';

/** What a route's variable mapping sees of the HTTP request. */
export interface RestRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON for JSON routes; undefined when the request had no body. */
  body: unknown;
  /** The unread body of binary routes, streamed into an Upload. */
  raw: Readable;
}

/**
 * A body `respond` has already serialised, as JSON: the parts whose concatenation it is, sent as
 * they are. The patient list splices each summary's stored text into its answer instead of
 * parsing and serialising it again, and the parts are never joined: a page's 650 kB of text
 * would be copied twice more (joined, then encoded into one buffer), each copy garbage to collect.
 * A part may be bytes (UTF-8): the summaries' texts as the service keeps them, written as they are.
 */
export class JsonText {
  readonly parts: readonly (string | Buffer)[];

  /** The text of `items` separated by `separator` (a list's or an object's members). */
  static joined(items: readonly JsonText[], separator = ','): JsonText {
    const parts: (string | Buffer)[] = [];
    items.forEach((item, index) => {
      if (index) parts.push(separator);
      for (const part of item.parts) parts.push(part);
    });
    return new JsonText(...parts);
  }

  constructor(...parts: (string | Buffer | JsonText)[]) {
    // Loops rather than flatMap: a page's answer is built of a few hundred parts, each flatMap
    // call an array per part, and garbage collection was a tenth of the list's CPU.
    const flat: (string | Buffer)[] = [];
    for (const part of parts) {
      if (part instanceof JsonText) for (const inner of part.parts) flat.push(inner);
      else flat.push(part);
    }
    this.parts = flat;
  }

  /** The whole text, joined. */
  get text(): string {
    return this.parts.join('');
  }
}

/** The domain services a route's `respond` (see RestRoute.respond) or a ServiceRoute may read directly. */
export type RouteServices = Pick<Services, 'glucose' | 'clinics' | 'patients' | 'tide'>;

/** What a route's `respond` reads with: the request's scope (its caller, loaders and access trail) and the services. */
export interface RouteReads {
  scope: Scope;
  services: RouteServices;
}

/** Lets a response mapping set headers (e.g. the session token) besides the body. */
export interface RestReply {
  header(name: string, value: string): void;
}

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1). */
export type JsonSchema = { [keyword: string]: unknown };

/** A query parameter or request header an operation reads; path parameters come from the path. */
export interface ParameterDoc {
  name: string;
  in: 'query' | 'header';
  description?: string;
  required?: boolean;
  schema: JsonSchema;
}

/**
 * A JSON body by its schema (which may embed GraphQL input types, see `graphqlInput` in
 * rest-compat/openapi/schemas), or a streamed body by its media type (and its schema where it is
 * JSON); either with an example a reader can send as it is.
 */
export type BodyDoc =
  | { schema: JsonSchema; required?: boolean; example: unknown }
  | { mediaType: string; description: string; schema?: JsonSchema; example: unknown };

/** Tidepool's OpenAPI files that describe the operations Islet reimplements. */
export type TidepoolFile = 'access.v1.yaml' | 'auth.v1.yaml' | 'blob.v1.yaml' | 'clinic.v1.yaml';

/**
 * What the OpenAPI description says of an operation (`GET /openapi.json` is generated from these).
 * Optional in the type so that a new route compiles, but the OpenAPI test fails for a route without it.
 */
export interface RouteDoc {
  summary: string;
  tag: string;
  description?: string;
  parameters?: readonly ParameterDoc[];
  body?: BodyDoc;
  /** The success body; none when the operation answers an empty body. */
  response?: JsonSchema;
  /** The success body's media type when it is not JSON (downloads). */
  responseMediaType?: string;
  /** Other media types the success body may come in (a download's formats), by media type: their schemas. */
  otherMediaTypes?: Record<string, JsonSchema>;
  /** Response headers of a success, by name (see RESPONSE_HEADERS in rest-compat/openapi/schemas). */
  responseHeaders?: readonly string[];
  /** Error statuses beyond those every operation may answer (400, 401, 403, 404, 500, 503). */
  errors?: readonly number[];
  /** The body errors answer, where it is not the legacy error body (the realms answer OAuth's). */
  errorBody?: JsonSchema;
  /** How the caller proves who it is when not with the session token or bearer token. */
  credentials?: 'basic' | 'none';
  /** The same operation in Tidepool's OpenAPI files, as `file#operationId`. */
  tidepool?: `${TidepoolFile}#${string}`;
}

/**
 * One legacy REST operation: the GraphQL operation it runs, how the HTTP request becomes its
 * variables and how its data becomes the legacy JSON. Routes hold no rules; services do.
 */
export interface RestRoute {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  document: string;
  variables?: (request: RestRequest) => Record<string, unknown>;
  /**
   * The legacy body for the operation's data (JsonText when serialised already); undefined sends
   * an empty body. May throw AppError.
   * It may also read domain services directly (`reads`) where shaping GraphQL's fields would cost
   * more than the answer: the patient list's summaries.
   */
  respond?: (data: Record<string, unknown>, reply: RestReply, request: RestRequest, reads: RouteReads) => unknown;
  status: number;
  /**
   * A connection the legacy operation answers whole (legacy lists have no cursors): the router
   * runs the document again with `$after` set to the page's `endCursor` (and no `$offset`) while
   * `hasNextPage`, until `enough` (given the rows so far) says it has what the answer needs, and
   * hands `respond` the data with every row in the connection's `nodes`.
   */
  pages?: { path: readonly string[]; enough?: (rows: number, request: RestRequest) => boolean };
  /** `binary` routes stream the body (blob and device-log uploads); others parse JSON up to 1 MiB. */
  body?: 'json' | 'binary';
  /**
   * Treat unusable credentials as none instead of answering 401: for operations that do not act
   * as the caller (sign-up, logins) and for logout, which always succeeds. Set by the app from
   * the document (CREDENTIAL_FREE_MUTATIONS), never by hand.
   */
  lenientCredentials?: boolean;
  /** Wire quirks of this operation (e.g. user deletion answers 401 where others answer 403). */
  errorStatus?: Partial<Record<ErrorCode, number>>;
  doc?: RouteDoc;
}

/**
 * A legacy JSON read answered by the domain services directly, without a GraphQL document: the
 * patient list, whose page of 50 patients with their summaries cost more to run through GraphQL
 * in process (and to shape again from its fields) than to read. The services check access as the
 * GraphQL fields do; the router logs the access trail and maps errors as for a RestRoute.
 */
export interface ServiceRoute {
  method: 'get';
  path: string;
  answer: (request: RestRequest, reads: RouteReads) => Promise<JsonText>;
  status: number;
  doc?: RouteDoc;
}

/** Bytes to send as a response, with the headers that describe them. */
export interface ContentResponse {
  stream: Readable;
  headers: Record<string, string>;
}

/**
 * A download: GraphQL has no binary responses, so these rows call the domain service directly
 * (which checks access exactly as the GraphQL fields do) and stream what it opens: stored
 * content, or a long list read in batches.
 */
export interface ContentRoute {
  path: string;
  doc?: RouteDoc;
  /**
   * Set when the download shares its path with a JSON row (content negotiation): a request goes
   * to it when its `format` parameter is given and not `json`, or, without one, when its Accept
   * header prefers `mediaType` to JSON; any other goes on to the row.
   */
  negotiated?: { mediaType: string; format: string };
  open: (scope: Scope, params: Record<string, string>, query: Record<string, unknown>) => Promise<ContentResponse>;
}
