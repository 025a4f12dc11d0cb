import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parseGlucoseRecord } from '../../src/domains/glucose/glucose-record';
import { contentRoutes, restRoutes, serviceRoutes } from '../../rest-compat/routes';
import { UNDOCUMENTED } from '../../rest-compat/openapi/document';
import { startTestApp, type TestApp } from '../support/app';
import { call, type Reply } from '../support/http';
import { expectMatchesIsletDescription, expectMatchesOperation } from '../support/openapi';
import { TIDEPOOL_DIVERGENCES } from '../support/tidepool-divergences';

const DIVERGENCES_PAGE = path.join(__dirname, '..', '..', 'docs', 'rest-compat.md');
const WRITES = new Set(['post', 'put', 'patch']);
/** Writes whose request is all in the path or the credentials (Tidepool's clients send no body). */
const READS_NO_BODY = [
  'post /auth/login',
  'post /auth/logout',
  'post /auth/serverlogin',
  'put /v1/datasets/{datasetId}',
  'put /v1/data_sets/{datasetId}',
  'patch /v1/clinics/{clinicId}/invites/clinicians/{inviteId}',
  'put /v1/clinics/{clinicId}/patients/{patientId}/reviews',
  'post /confirm/send/signup/{userId}',
  'post /confirm/resend/signup/{email}',
  'put /confirm/accept/signup/{key}',
  'post /confirm/send/forgot/{email}',
  'put /confirm/{userId}/invited/{address}',
];
/** A schema that says what it holds: a type (or a reference), down to an array's items; never "any". */
const typed = (schema: any): boolean =>
  Boolean(schema) &&
  (schema.$ref !== undefined || (schema.type !== undefined && (schema.type !== 'array' || typed(schema.items))));
const openApiPath = (route: string) => route.replace(/:(\w+)/g, '{$1}');
const downloads = contentRoutes({} as never);

function reply(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return { status, body, headers: new Headers(headers), text: JSON.stringify(body) };
}

describe('GET /openapi.json', () => {
  let app: TestApp;
  let document: any;

  beforeAll(async () => {
    app = await startTestApp();
    document = (await call(app.url, '/openapi.json')).body;
  }, 60_000);

  afterAll(async () => {
    await app?.stop();
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('describes every route of the REST table and every download, each with its metadata', () => {
    const routes = [
      ...restRoutes,
      ...serviceRoutes,
      ...downloads.map((route) => ({ ...route, method: 'get' as const })),
    ];
    const missing = routes.filter((route) => !document.paths[openApiPath(route.path)]?.[route.method]);
    expect(missing.map((route) => `${route.method} ${route.path}`)).toEqual([]);
    const undocumented = routes.filter((route) => !route.doc);
    expect(undocumented.map((route) => `${route.method} ${route.path}`)).toEqual([]);
    const marked = Object.entries(document.paths).flatMap(([template, item]: [string, any]) =>
      Object.entries(item)
        .filter(([, operation]: [string, any]) => operation[UNDOCUMENTED])
        .map(([method]) => `${method} ${template}`),
    );
    expect(marked).toEqual([]);
  });

  it("describes the service's own endpoints and the realms' discovery document", () => {
    for (const template of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs'])
      expect(document.paths[template]?.get).toBeDefined();
    expect(document.paths['/realms/{realm}/.well-known/openid-configuration'].get.summary).toMatch(/discovery/);
  });

  it("uses Tidepool's security schemes, error body and statuses", () => {
    expect(document.components.securitySchemes.sessionToken).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-Tidepool-Session-Token',
    });
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.components.schemas.Error.required).toEqual(['code', 'reason', 'error']);
    const login = document.paths['/auth/login'].post;
    expect(login.security).toEqual([{ basic: [] }]);
    expect(login.responses['200'].headers['X-Tidepool-Session-Token'].required).toBe(true);
    expect(Object.keys(document.paths['/v1/users/{userId}/blobs'].post.responses)).toContain('201');
    expect(document.paths['/auth/user/{userId}'].delete.responses['401']).toBeDefined();
  });

  it('converts GraphQL inputs to the legacy body schemas, with legacy enum values', () => {
    const body = document.paths['/v1/clinics'].post.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(expect.arrayContaining(['name', 'preferredBgUnits']));
    expect(body.properties.clinicType.enum).toContain('provider_practice');
    expect(body.properties.preferredBgUnits.enum).toEqual(['mg/dL', 'mmol/L']);
    const blobs = document.paths['/v1/users/{userId}/blobs'].get.parameters;
    expect(blobs.find((parameter: any) => parameter.name === 'status').schema.items.enum).toEqual([
      'created',
      'available',
    ]);
    expect(blobs.find((parameter: any) => parameter.name === 'size').schema.maximum).toBe(1000);
  });

  it('gives every request body a schema and an example that matches it, and every parameter a type', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const problems: string[] = [];
    for (const [template, item] of Object.entries(document.paths) as [string, any][]) {
      for (const [method, operation] of Object.entries(item) as [string, any][]) {
        const what = `${method} ${template}`;
        if (WRITES.has(method) && !operation.requestBody && !READS_NO_BODY.includes(what))
          problems.push(`${what}: no request body`);
        for (const [mediaType, content] of Object.entries(operation.requestBody?.content ?? {}) as [string, any][]) {
          if (!content.schema) problems.push(`${what} ${mediaType}: no schema`);
          else if (content.example === undefined) problems.push(`${what} ${mediaType}: no example`);
          else if (!ajv.validate(content.schema, content.example))
            problems.push(`${what} ${mediaType}: the example does not match: ${ajv.errorsText()}`);
        }
        for (const parameter of operation.parameters ?? [])
          if (!typed(parameter.schema)) problems.push(`${what}: parameter ${parameter.name} has no type`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("lists record examples the service's own parser takes, one of each type", () => {
    const body = document.paths['/v1/datasets/{datasetId}/data'].post.requestBody.content['application/json'];
    const records = body.example.map((record: unknown, index: number) => parseGlucoseRecord(record, index));
    expect(records.map((record: { type: string }) => record.type).sort()).toEqual(['cbg', 'smbg']);
  });

  it('says a TIDE patient must carry all the tags asked, as the report selects them', () => {
    const tags = document.paths['/v1/clinics/{clinicId}/tide_report'].get.parameters.find(
      (parameter: any) => parameter.name === 'tags',
    );
    expect(tags.description).toMatch(/all of them/);
  });

  it('refuses a reply whose status, header or body the description does not have', async () => {
    const check = (method: string, path: string, answer: Reply) =>
      expectMatchesIsletDescription(app.url, method, path, answer);
    await expect(check('GET', '/healthz', reply(200, { status: 'ok' }))).resolves.toBeUndefined();
    await expect(check('GET', '/healthz', reply(418, {}))).rejects.toThrow(/status 418 is not listed/);
    await expect(check('GET', '/healthz', reply(200, { status: 'bad' }))).rejects.toThrow(/\/status/);
    const user = { userid: '0123456789', emailVerified: false, username: 'a@b.org', emails: ['a@b.org'] };
    await expect(check('POST', '/auth/login', reply(200, user))).rejects.toThrow(
      /header X-Tidepool-Session-Token is missing/,
    );
    await expect(
      check('GET', '/v1/clinics/0123456789abcdef01234567', reply(200, { id: '0123456789abcdef01234567' })),
    ).rejects.toThrow(/must have required property/);
  });
});

describe("Tidepool's OpenAPI files", () => {
  it('are read for every operation the description names', async () => {
    const user = { userid: '0123456789', username: 'a@b.org', emails: ['a@b.org'], emailVerified: true };
    await expectMatchesOperation(
      reply(200, user, { 'x-tidepool-session-token': 'token' }),
      'auth.v1.yaml',
      'CreateSessionToken',
    );
    await expect(
      expectMatchesOperation(reply(200, ['view']), 'access.v1.yaml', 'GetPermissionsForUser'),
    ).rejects.toThrow(/must be object/);
  });

  it('list each deliberate divergence in the table of docs/rest-compat.md, and only those', () => {
    const readme = fs.readFileSync(DIVERGENCES_PAGE, 'utf8');
    const start = readme.indexOf("### Deliberate divergences from Tidepool's OpenAPI files");
    const section = readme.slice(start, readme.indexOf('\n#', start + 1));
    const rows = section
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => line.split('|').map((cell) => cell.trim()));
    const listed = rows.map(([, operation, status, skip]) => `${operation} ${status} ${skip}`);
    const inCode = TIDEPOOL_DIVERGENCES.map(
      (divergence) => `\`${divergence.operation}\` ${divergence.status} \`${divergence.skip}\``,
    );
    expect(listed).toEqual(inCode);
  });
});
