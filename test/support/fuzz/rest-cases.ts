import { createHash } from 'node:crypto';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import fc from 'fast-check';
import type { TestApp } from '../app';
import { answerText, type Exchange, type Fuzzer } from './harness';
import { replyOf, type Reply } from '../http';
import { expectMatchesIsletDescription } from '../openapi';
import { anyShortText, anyText, deepValue, hostileValue, longAsciiText, valueOf, type JsonSchema } from './values';
import { CALLERS, type Caller, type IdPools, type World } from './world';

/**
 * REST fuzz cases derived from Islet's own OpenAPI description (GET /openapi.json, generated
 * from the route table): every operation's path parameters, query parameters, headers and body
 * come from what the description declares of them, right and wrong.
 */
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: JsonSchema;
}

export interface RestOperation {
  method: string;
  template: string;
  parameters: Parameter[];
  body?: { kind: 'json'; schema: JsonSchema } | { kind: 'binary'; mediaType: string };
  basicCredentials: boolean;
}

export async function restOperations(app: TestApp): Promise<RestOperation[]> {
  const document = (await $RefParser.dereference(await (await fetch(`${app.url}/openapi.json`)).json())) as {
    paths: Record<string, Record<string, Record<string, any>>>;
  };
  return Object.entries(document.paths).flatMap(([template, item]) =>
    Object.entries(item).map(([method, operation]): RestOperation => {
      const [mediaType, content] = Object.entries(operation.requestBody?.content ?? {})[0] ?? [];
      const schema = (content as { schema?: JsonSchema } | undefined)?.schema;
      return {
        method,
        template,
        parameters: operation.parameters ?? [],
        body:
          !mediaType || !schema
            ? undefined
            : schema.format === 'binary'
              ? { kind: 'binary', mediaType }
              : { kind: 'json', schema },
        basicCredentials: (operation.security ?? []).some((entry: object) => 'basic' in entry),
      };
    }),
  );
}

/** A body as the case carries it; digests and encodings are made when it is sent. */
type CaseBody =
  | { json: unknown; contentType: string }
  | { text: string; contentType: string }
  | { bytes: Uint8Array; contentType: string; digest: 'right' | 'wrong' | 'garbage' | 'none' };

export interface RestCase {
  caller: Caller;
  bearer: boolean;
  path: Record<string, string>;
  query: [string, string][];
  headers: Record<string, string>;
  body?: CaseBody;
}

/** What a path parameter names, by its name: the world's ids of that kind. */
function poolFor(name: string, pools: IdPools): string[] {
  if (/^(userId|sharerId|patientId|clinicianId)$/.test(name)) return pools.users;
  if (name === 'clinicId') return pools.clinics;
  if (name === 'blobId') return pools.blobs;
  if (name === 'id') return pools.deviceLogs;
  if (name === 'datasetId') return pools.datasets;
  if (name === 'inviteId') return pools.invites;
  if (name === 'patientTagId') return pools.patientTags;
  if (name === 'shareCode') return pools.shareCodes;
  if (name === 'token') return pools.tokens;
  if (name === 'realm') return ['dev1', 'dev2', 'production'];
  if (name === 'permission') return ['view', 'upload', 'note', 'custodian'];
  return pools.all;
}

/**
 * The HTTP server refuses a request line and headers over 16 KiB in all (431) before the service
 * sees them: URLs and headers stay below that, so the cases reach the service.
 */
const URL_BUDGET = 6_000;
const clip = (text: string, max = 2_000) => text.slice(0, max);
/** URLs carry UTF-8, which a lone surrogate has none of. */
const wellFormed = (text: string) => text.replace(/\p{Cs}/gu, '\ufffd');

/** Header values fetch can send: Latin-1 without control characters. */
export const headerText = (value: unknown) =>
  clip(String(typeof value === 'string' ? value : JSON.stringify(value)))
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .replace(/[^\u0000-\u00ff]/g, '?')
    .trim();

const queryText = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.map((item) => (typeof item === 'string' ? item : (JSON.stringify(item) ?? '')))
    : [value === null ? '' : typeof value === 'string' ? value : (JSON.stringify(value) ?? '')];

function pathArbitrary(parameters: Parameter[], pools: IdPools) {
  const model = Object.fromEntries(
    parameters
      .filter((parameter) => parameter.in === 'path')
      .map((parameter) => [
        parameter.name,
        fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom(...poolFor(parameter.name, pools)) },
          { weight: 1, arbitrary: fc.constantFrom(...pools.all) },
          {
            weight: 2,
            arbitrary: valueOf(parameter.schema, parameter.name, pools).map((value) => clip(queryText(value)[0] ?? '')),
          },
          { weight: 2, arbitrary: anyShortText },
        ),
      ]),
  );
  return fc.record(model) as fc.Arbitrary<Record<string, string>>;
}

function queryArbitrary(parameters: Parameter[], pools: IdPools): fc.Arbitrary<[string, string][]> {
  const declared = parameters.filter((parameter) => parameter.in === 'query');
  const model = Object.fromEntries(
    declared.map((parameter) => [parameter.name, valueOf(parameter.schema, parameter.name, pools)]),
  );
  const required = declared.filter((parameter) => parameter.required).map((parameter) => parameter.name);
  const params = fc.oneof(
    { weight: 4, arbitrary: fc.record(model, { requiredKeys: required }) },
    { weight: 1, arbitrary: fc.record(model, { requiredKeys: [] }) },
  );
  const listStyle = fc.constantFrom('repeat', 'comma');
  const unknown = fc.array(
    fc.tuple(fc.oneof(anyShortText, fc.constantFrom('a[b]', 'page', 'size', '__proto__')), anyShortText),
    { maxLength: 2 },
  );
  return fc.tuple(params, listStyle, unknown).map(([values, style, extra]) => {
    const entries = [
      ...Object.entries(values).flatMap(([name, value]): [string, string][] =>
        Array.isArray(value) && style === 'comma'
          ? [[name, queryText(value).join(',')]]
          : queryText(value).map((text): [string, string] => [name, text]),
      ),
      ...extra,
    ];
    const kept: [string, string][] = [];
    let length = 0;
    for (const [name, value] of entries) {
      const entry: [string, string] = [wellFormed(name), wellFormed(clip(value))];
      length += encodeURIComponent(entry.join('=')).length + 1;
      if (length > URL_BUDGET) break;
      kept.push(entry);
    }
    return kept;
  });
}

function headerArbitrary(operation: RestOperation, pools: IdPools): fc.Arbitrary<Record<string, string>> {
  const declared = operation.parameters.filter(
    (parameter) => parameter.in === 'header' && parameter.name.toLowerCase() !== 'content-type',
  );
  const model: Record<string, fc.Arbitrary<string>> = Object.fromEntries(
    declared.map((parameter) => [
      parameter.name.toLowerCase(),
      fc.oneof(valueOf(parameter.schema, parameter.name, pools), anyShortText).map(headerText),
    ]),
  );
  if (operation.basicCredentials) {
    const user = fc.oneof(fc.constantFrom(...pools.emails), anyShortText);
    model.authorization = fc.oneof(
      fc
        .tuple(user, anyShortText)
        .map(([name, password]) => `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`),
      anyShortText.map((text) => `Basic ${headerText(text)}`),
      longAsciiText.map((text) => `Basic ${text}`),
    );
  }
  const required = declared.filter((parameter) => parameter.required).map((parameter) => parameter.name.toLowerCase());
  return fc.oneof(
    { weight: 4, arbitrary: fc.record(model, { requiredKeys: required }) },
    { weight: 1, arbitrary: fc.record(model, { requiredKeys: [] }) },
  ) as fc.Arbitrary<Record<string, string>>;
}

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8'];
const OTHER_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
  'multipart/form-data',
  '',
];

function jsonBodyArbitrary(schema: JsonSchema, pools: IdPools): fc.Arbitrary<CaseBody> {
  const contentType = fc.constantFrom(...JSON_TYPES);
  return fc.oneof(
    { weight: 6, arbitrary: fc.record({ json: valueOf(schema, 'body', pools), contentType }) },
    { weight: 1, arbitrary: fc.record({ json: fc.oneof(hostileValue, deepValue), contentType }) },
    {
      weight: 1,
      arbitrary: fc.record({
        text: fc.oneof(fc.constantFrom('{', '[1,', '{"a":1}x', '', 'nul', '{"a":"\\ud800"}', '\u0000'), anyText),
        contentType,
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        text: fc.jsonValue().map((value) => JSON.stringify(value)),
        contentType: fc.constantFrom(...OTHER_TYPES),
      }),
    },
  );
}

const LOG_ENTRY = fc.record({
  type: fc.oneof(fc.constantFrom('send', 'receive', 'connection'), anyText),
  managerIdentifier: anyText,
  deviceIdentifier: anyText,
  timestamp: fc.oneof(
    fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
    anyText,
  ),
  message: anyText,
});

/** A glucose record as dataset uploads take them (the description calls that body binary, so its shape is here). */
const GLUCOSE_RECORD = fc.record(
  {
    type: fc.oneof(fc.constantFrom('cbg', 'smbg', 'upload'), anyText),
    time: fc.oneof(
      fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
      anyText,
    ),
    value: fc.oneof(fc.double({ noNaN: true }), fc.constantFrom(0, -1, 40, 401, 2 ** 53, 1e308), anyText),
    units: fc.oneof(fc.constantFrom('mg/dL', 'mmol/L', 'mmol/l'), anyText),
    sampleInterval: fc.oneof(fc.constantFrom(300_000, 900_000, 0, -1), hostileValue),
    deviceId: anyText,
  },
  { requiredKeys: ['type', 'time', 'value', 'units'] },
);

function binaryBodyArbitrary(mediaType: string): fc.Arbitrary<CaseBody> {
  const contentType = fc.constantFrom(
    mediaType === '*/*' ? 'application/octet-stream' : mediaType,
    'image/png',
    'text/plain; charset=utf-8',
    'application/json',
    'garbage',
    '',
  );
  const bytes = fc.oneof(
    fc.uint8Array({ maxLength: 2048 }),
    fc
      .array(fc.oneof(LOG_ENTRY, GLUCOSE_RECORD, hostileValue), { maxLength: 4 })
      .map((entries) => new TextEncoder().encode(JSON.stringify(entries))),
  );
  const digest = fc.constantFrom('right', 'wrong', 'garbage', 'none') as fc.Arbitrary<
    'right' | 'wrong' | 'garbage' | 'none'
  >;
  return fc.record({ bytes, contentType, digest });
}

export function restCaseArbitrary(operation: RestOperation, pools: IdPools): fc.Arbitrary<RestCase> {
  const body: fc.Arbitrary<CaseBody | undefined> =
    operation.method === 'get'
      ? fc.constant(undefined)
      : operation.body?.kind === 'json'
        ? fc.option(jsonBodyArbitrary(operation.body.schema, pools), { freq: 8, nil: undefined })
        : operation.body?.kind === 'binary'
          ? fc.option(binaryBodyArbitrary(operation.body.mediaType), { freq: 8, nil: undefined })
          : fc.option(jsonBodyArbitrary({}, pools), { freq: 2, nil: undefined });
  return fc.record({
    caller: fc.constantFrom(...CALLERS),
    bearer: fc.boolean(),
    path: pathArbitrary(operation.parameters, pools),
    query: queryArbitrary(operation.parameters, pools),
    headers: headerArbitrary(operation, pools),
    body,
  });
}

const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('base64');

export interface SentRequest {
  path: string;
  /** How the answer differs from what /openapi.json (and Tidepool's description) declares, if it does. */
  mismatch?: string;
  /** Everything the request carried, as text, to tell an echo from a leak. */
  text: string;
  reply: Reply;
}

/** Sends a case the way a client would (its caller's token as session token or bearer token). */
export async function sendRestCase(
  app: TestApp,
  world: World,
  operation: RestOperation,
  fuzz: RestCase,
): Promise<SentRequest> {
  const pathname = operation.template.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(wellFormed(fuzz.path[name] ?? '')),
  );
  const search = new URLSearchParams(
    fuzz.query.map(([name, value]): [string, string] => [wellFormed(name), wellFormed(value)]),
  );
  // As the client sends it: `..` and `.` segments (a parameter may be one) are resolved first.
  const url = new URL(`${app.url}${pathname}${search.size ? `?${search}` : ''}`);
  const path = `${url.pathname}${url.search}`;
  const headers: Record<string, string> = { ...fuzz.headers };
  const token = world.tokens[fuzz.caller];
  if (token && fuzz.bearer) headers.authorization ??= `Bearer ${token}`;
  let body: string | Buffer | undefined;
  let bodyText = '';
  if (fuzz.body && 'json' in fuzz.body) body = bodyText = JSON.stringify(fuzz.body.json) ?? 'null';
  else if (fuzz.body && 'text' in fuzz.body) body = bodyText = fuzz.body.text;
  else if (fuzz.body) {
    body = Buffer.from(fuzz.body.bytes);
    bodyText = Buffer.from(fuzz.body.bytes).toString('latin1');
    const digests = {
      right: `md5=${md5(fuzz.body.bytes)}`,
      wrong: `md5=${md5(Buffer.from('other'))}`,
      garbage: 'md5=!!',
    };
    // The body's own digest choice wins over a generated Digest header, so right digests reach the store.
    if (fuzz.body.digest !== 'none') headers.digest = digests[fuzz.body.digest];
  }
  if (fuzz.body?.contentType) headers['content-type'] = fuzz.body.contentType;
  if (token && !fuzz.bearer) headers['x-tidepool-session-token'] = token;
  const method = operation.method.toUpperCase();
  const response = await fetch(`${app.url}${path}`, { method, headers, body, redirect: 'manual' });
  const reply = await replyOf(response);
  const mismatch = await expectMatchesIsletDescription(app.url, method, path, reply).then(
    () => undefined,
    (error: Error) => error.message,
  );
  return {
    path,
    reply,
    mismatch,
    text: `${path} ${JSON.stringify(fuzz.path)} ${JSON.stringify(fuzz.query)} ${JSON.stringify(headers)} ${bodyText}`,
  };
}

/**
 * The legacy error body (src/http/http-errors.ts), whose code is the status, also where no
 * operation matched (a garbage parameter may leave the route table); the realms answer OAuth's,
 * which the description's check covers.
 */
function errorBodyProblems(path: string, status: number, body: unknown): string[] {
  if (status < 400 || path.startsWith('/realms/')) return [];
  const error = body as { code?: unknown; reason?: unknown; error?: unknown } | undefined;
  if (error?.code === status && typeof error.reason === 'string' && typeof error.error === 'number') return [];
  return [`a ${status} whose body is not the legacy error body {code: ${status}, reason, error}`];
}

/** Sends a case and tells what the transport's own properties find wrong with its answer. */
export async function restExchange(fuzzer: Fuzzer, operation: RestOperation, fuzz: RestCase): Promise<Exchange> {
  const { path, reply, text, mismatch } = await sendRestCase(fuzzer.app, fuzzer.world, operation, fuzz);
  return {
    status: reply.status,
    outcome: String(reply.status),
    answer: answerText(reply.status, reply.headers, reply.text),
    request: text,
    refused: reply.status >= 400,
    mutating: operation.method !== 'get',
    problems: [...(mismatch ? [mismatch] : []), ...errorBodyProblems(path, reply.status, reply.body)],
  };
}
