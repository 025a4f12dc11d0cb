import path from 'node:path';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Reply } from './http';

/**
 * Checks REST replies against Tidepool's published OpenAPI files (a copy, with every file its
 * `$ref`s reach, in test/fixtures/tidepool-openapi), so a route's wire shape is the one legacy
 * clients were written for rather than the one its own tests happen to expect.
 */
const REFERENCE = path.join(__dirname, '..', 'fixtures', 'tidepool-openapi', 'reference');

export type OpenApiFile = 'clinic.v1.yaml';

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: object }> }>;
  operationId?: string;
}
interface OpenApiDocument {
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
const ajv = new Ajv({ strict: false, allErrors: true, code: { regExp: goRegExp } });
addFormats(ajv);

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

/** The JSON schema of the reply's status, `undefined` when the file declares the status without a body. */
function responseSchema(operation: Operation, file: string, operationId: string, status: number): object | undefined {
  const responses = operation.responses ?? {};
  const response = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
  if (!response) {
    throw new Error(
      `${file} ${operationId} declares no ${status} response (it has ${Object.keys(responses).join(', ')})`,
    );
  }
  return response.content?.['application/json']?.schema;
}

/**
 * Fails (throws, so jest reports it) unless the reply's status is one the operation declares
 * and its JSON body matches that response's schema. A status declared without a body schema
 * only checks the status.
 *
 *   await expectMatchesOperation(reply, 'clinic.v1.yaml', 'GetClinic');
 */
export async function expectMatchesOperation(reply: Reply, file: OpenApiFile, operationId: string): Promise<void> {
  const operation = findOperation(await load(file), file, operationId);
  const schema = responseSchema(operation, file, operationId, reply.status);
  if (!schema) return;
  const key = `${file}#${operationId}#${reply.status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(key, validate);
  }
  if (validate(reply.body)) return;
  const problems = (validate.errors ?? []).map((e) => `  ${e.instancePath || '(body)'} ${e.message ?? ''}`);
  throw new Error(
    `${reply.status} reply does not match ${file} ${operationId}:\n${problems.join('\n')}\nbody: ${reply.text.slice(0, 2000)}`,
  );
}
