import path from 'node:path';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { TidepoolFile } from '../../rest-compat/route';
import type { Reply } from './http';
import { TIDEPOOL_DIVERGENCES, type Divergence } from './tidepool-divergences';

/**
 * Checks REST replies against OpenAPI descriptions: Islet's own (`GET /openapi.json`, generated
 * from the route table) and Tidepool's published files (a copy, with every file their `$ref`s
 * reach, in test/fixtures/tidepool-openapi), so a route's wire shape is the one it documents and
 * the one legacy clients were written for, rather than the one its own tests happen to expect.
 */
const REFERENCE = path.join(__dirname, '..', 'fixtures', 'tidepool-openapi', 'reference');

export type OpenApiFile = TidepoolFile;

interface Response {
  headers?: Record<string, { required?: boolean; schema?: object }>;
  content?: Record<string, { schema?: object }>;
}
interface Operation {
  responses?: Record<string, Response>;
  operationId?: string;
  'x-tidepool-operation'?: string;
}
interface OpenApiDocument {
  info: { title: string };
  paths: Record<string, Record<string, Operation | unknown>>;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);
const documents = new Map<OpenApiFile, Promise<OpenApiDocument>>();
const validators = new Map<string, ValidateFunction>();
// Tidepool's patterns are Go regular expressions: a POSIX class such as `[:graph:]` (ASCII
// printable, no space, in Go) becomes its JavaScript range.
const POSIX_CLASSES: Record<string, string> = { graph: '!-~', alnum: '0-9A-Za-z', alpha: 'A-Za-z', digit: '0-9' };
const goRegExp = Object.assign(
  (pattern: string, flags: string) =>
    new RegExp(
      pattern.replace(/\[:(\w+):\]/g, (all, name: string) => POSIX_CLASSES[name] ?? all),
      flags,
    ),
  { code: 'goRegExp' },
);
// OpenAPI 3.0 schemas carry annotations JSON Schema does not know (example, x-go-type, ...):
// strict mode would refuse them; `nullable` is understood by Ajv itself.
const tidepoolAjv = new Ajv({ strict: false, allErrors: true, code: { regExp: goRegExp } });
addFormats(tidepoolAjv);
// Islet's description is OpenAPI 3.1, whose schemas are JSON Schema 2020-12.
const isletAjv = new Ajv2020({ strict: false, allErrors: true });
addFormats(isletAjv);

function load(file: OpenApiFile): Promise<OpenApiDocument> {
  let document = documents.get(file);
  if (!document) {
    document = $RefParser.dereference(path.join(REFERENCE, file)) as Promise<OpenApiDocument>;
    documents.set(file, document);
  }
  return document;
}

function findOperation(document: OpenApiDocument, file: string, operationId: string): Operation {
  for (const item of Object.values(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (METHODS.has(method) && (operation as Operation).operationId === operationId) return operation as Operation;
    }
  }
  throw new Error(`${file} has no operation ${operationId}`);
}

const responseOf = (operation: Operation, status: number): Response | undefined => {
  const responses = operation.responses ?? {};
  return responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
};

/** `/*\/summary` matches `/0/summary` and `/0/summary/cgmStats`. */
const underPointer = (pointer: string, instancePath: string) =>
  new RegExp(`^${pointer.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]+')}(/|$)`).test(instancePath);

function divergencesOf(operation: string, status: number): Divergence[] {
  return TIDEPOOL_DIVERGENCES.filter(
    (divergence) =>
      (divergence.operation === '*' || divergence.operation === operation) &&
      (divergence.status === status || (divergence.status === 'errors' && status >= 400)),
  );
}

function validatorFor(ajv: Ajv, key: string, schema: object): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(key, validate);
  }
  return validate;
}

/** What is wrong with the reply's headers and JSON body against the declared response, less what `skipped` allows. */
function problemsOf(
  ajv: Ajv,
  key: string,
  response: Response,
  reply: Reply,
  skipped: (what: string) => boolean = () => false,
): string[] {
  const problems: string[] = [];
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    if (header.required && !reply.headers.has(name) && !skipped(`header:${name}`))
      problems.push(`  header ${name} is missing`);
  }
  const schema = response.content?.['application/json']?.schema;
  const isJson = /^application\/json\b/.test(reply.headers.get('content-type') ?? 'application/json');
  if (!schema || !isJson || skipped('body')) return problems;
  const validate = validatorFor(ajv, key, schema);
  if (validate(reply.body)) return problems;
  const errors = (validate.errors ?? []).filter((error) => !skipped(pointerOf(error)));
  return [...problems, ...errors.map((error) => `  ${error.instancePath || '(body)'} ${error.message ?? ''}`)];
}

/** Where an error is: a missing property is placed where it would be (`/digestMD5`), not at its object. */
function pointerOf(error: ErrorObject): string {
  const missing =
    error.keyword === 'required' ? `/${(error.params as { missingProperty: string }).missingProperty}` : '';
  return `${error.instancePath}${missing}` || '/';
}

function fail(reply: Reply, what: string, problems: string[]): never {
  throw new Error(
    `${reply.status} reply does not match ${what}:\n${problems.join('\n')}\nbody: ${reply.text.slice(0, 2000)}`,
  );
}

/**
 * Fails (throws, so jest reports it) unless the reply's status is one the Tidepool operation
 * declares and its headers and JSON body match that response, except where TIDEPOOL_DIVERGENCES
 * lists a deliberate difference. A status declared without a body schema only checks the status.
 *
 *   await expectMatchesOperation(reply, 'clinic.v1.yaml', 'GetClinic');
 */
export async function expectMatchesOperation(reply: Reply, file: OpenApiFile, operationId: string): Promise<void> {
  const operation = findOperation(await load(file), file, operationId);
  const divergences = divergencesOf(`${file}#${operationId}`, reply.status);
  const skipped = (what: string) =>
    divergences.some(
      ({ skip }) => skip === what || (skip.startsWith('/') && what.startsWith('/') && underPointer(skip, what)),
    );
  const response = responseOf(operation, reply.status);
  if (!response) {
    if (skipped('status')) return;
    const declared = Object.keys(operation.responses ?? {}).join(', ');
    throw new Error(`${file} ${operationId} declares no ${reply.status} response (it has ${declared})`);
  }
  const problems = problemsOf(tidepoolAjv, `${file}#${operationId}#${reply.status}`, response, reply, skipped);
  if (problems.length) fail(reply, `${file} ${operationId}`, problems);
}

/**
 * Fails unless `value` matches one of Tidepool's model files (a path under the reference, such
 * as `confirm/models/confirmation.v1.yaml`): for answers whose operations Tidepool publishes no
 * description of, only their models (hydrophone's confirmations).
 */
export async function expectMatchesTidepoolModel(value: unknown, model: string): Promise<void> {
  let schema = models.get(model);
  if (!schema) {
    schema = $RefParser.dereference(path.join(REFERENCE, model)) as Promise<object>;
    models.set(model, schema);
  }
  const validate = validatorFor(tidepoolAjv, `model:${model}`, await schema);
  if (validate(value)) return;
  const problems = (validate.errors ?? []).map(
    (error) => `  ${error.instancePath || '(value)'} ${error.message ?? ''}`,
  );
  throw new Error(`does not match Tidepool's ${model}:\n${problems.join('\n')}\n${JSON.stringify(value)}`);
}
const models = new Map<string, Promise<object>>();

/** Islet's own description, read once per running service; null for a server that is not Islet. */
const isletDocuments = new Map<string, Promise<OpenApiDocument | null>>();

async function fetchIsletDocument(baseUrl: string): Promise<OpenApiDocument | null> {
  const response = await fetch(`${baseUrl}/openapi.json`).catch(() => null);
  if (!response) return null;
  // Read whole whatever it is, so no connection stays held by an unread body.
  const text = await response.text();
  if (!response.ok || !/json/.test(response.headers.get('content-type') ?? '')) return null;
  const document = JSON.parse(text) as OpenApiDocument;
  if (document.info?.title !== 'Islet REST API') return null;
  return (await $RefParser.dereference(document as never)) as unknown as OpenApiDocument;
}

/** The operation serving `method path`; of several templates that match, the one with the most literal segments. */
function operationFor(document: OpenApiDocument, method: string, requestPath: string) {
  const pathname = requestPath.split('?')[0]!.replace(/\/$/, '') || '/';
  let best: { template: string; operation: Operation; literals: number } | undefined;
  for (const [template, item] of Object.entries(document.paths)) {
    const operation = item[method] as Operation | undefined;
    if (!operation) continue;
    const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`, 'i');
    if (!pattern.test(pathname)) continue;
    const literals = template.split('/').filter((segment) => segment && !segment.startsWith('{')).length;
    if (!best || literals > best.literals) best = { template, operation, literals };
  }
  return best;
}

/**
 * Checks a reply of Islet against Islet's description (the status is one the operation lists,
 * its documented headers are there, its JSON body matches) and, where the operation names
 * Tidepool's description of it, against Tidepool's file too. Replies of other servers, and of
 * paths the description leaves out (GraphQL, the realms' OAuth endpoints), are not checked.
 */
export async function expectMatchesIsletDescription(
  baseUrl: string,
  method: string,
  requestPath: string,
  reply: Reply,
): Promise<void> {
  let document = isletDocuments.get(baseUrl);
  if (!document) {
    document = fetchIsletDocument(baseUrl);
    isletDocuments.set(baseUrl, document);
  }
  const loaded = await document;
  const found = loaded && operationFor(loaded, method.toLowerCase(), requestPath);
  if (!found) return;
  const { template, operation } = found;
  const what = `${method.toUpperCase()} ${template} in /openapi.json`;
  const response = operation.responses?.[String(reply.status)];
  if (!response)
    fail(reply, what, [
      `  status ${reply.status} is not listed (${Object.keys(operation.responses ?? {}).join(', ')})`,
    ]);
  const problems = problemsOf(isletAjv, `islet#${method}#${template}#${reply.status}`, response, reply);
  if (problems.length) fail(reply, what, problems);
  const tidepool = operation['x-tidepool-operation'];
  if (tidepool) {
    const [file, operationId] = tidepool.split('#') as [OpenApiFile, string];
    await expectMatchesOperation(reply, file, operationId);
  }
}
