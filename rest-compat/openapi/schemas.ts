import { REALMS } from '../../src/config';
import { LEGACY_PAGE_SIZE } from '../../src/kernel/paging';
import { MAX_LIST_ENTRIES, USER_ID_PATTERN } from '../../src/kernel/validation';
import { BLOB_STATUS, type LegacyEnum, PERMISSION_NAME } from '../enums';
import type { JsonSchema, ParameterDoc } from '../route';

/**
 * The vocabulary of the routes' OpenAPI metadata: the legacy wire shapes every table shares, and
 * parameter declarations built from the same constants and enums the validators use.
 */

/** Where a body is passed as a GraphQL input: the generator converts that input type from the schema. */
export const graphqlInput = (name: string, omit: readonly string[] = []): JsonSchema => ({
  'x-graphql-input': name,
  'x-omit': omit,
});

export const string = (description?: string): JsonSchema => ({ type: 'string', ...(description && { description }) });
export const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
export const integer: JsonSchema = { type: 'integer' };
export const boolean: JsonSchema = { type: 'boolean' };
export const strings: JsonSchema = { type: 'array', items: { type: 'string' }, maxItems: MAX_LIST_ENTRIES };
export const arrayOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items });
export const legacyEnum = (values: LegacyEnum): JsonSchema => ({ type: 'string', enum: values.legacyValues });

/** An object with these properties (others allowed: legacy answers grow), `required` among them. */
export function object(properties: Record<string, JsonSchema>, required: readonly string[] = []): JsonSchema {
  return { type: 'object', properties, ...(required.length && { required }) };
}

/** Tidepool's platform wrapper `{data, meta}`. */
export const wrapped = (data: JsonSchema): JsonSchema => object({ data, meta: { type: 'object' } }, ['data', 'meta']);

/** The specification's error body, which every REST error answers (src/http/http-errors.ts). */
export const ERROR_BODY = object({ code: integer, reason: string(), error: integer }, ['code', 'reason', 'error']);

export const USER = object(
  {
    userid: string(),
    username: string(),
    emails: strings,
    roles: strings,
    emailVerified: boolean,
    termsAccepted: string(),
    createdTime: dateTime,
    createdUserId: string(),
    modifiedTime: dateTime,
    modifiedUserId: string(),
    passwordExists: boolean,
  },
  ['userid', 'emailVerified'],
);

/** Tidepool's TokenData. */
export const TOKEN_DATA = object({ userid: string(), isserver: boolean, expires_at: integer }, [
  'isserver',
  'expires_at',
]);

/** `{"view":{},"note":{}}`: permission names to empty objects. */
export const PERMISSION_SET: JsonSchema = {
  type: 'object',
  propertyNames: legacyEnum(PERMISSION_NAME),
  additionalProperties: { type: 'object', maxProperties: 0 },
};

/** User id → permission set. */
export const PERMISSION_GROUPS: JsonSchema = { type: 'object', additionalProperties: PERMISSION_SET };

export const BLOB = object(
  {
    id: string(),
    userId: string(),
    digestMD5: string(),
    mediaType: string(),
    size: integer,
    status: legacyEnum(BLOB_STATUS),
    createdTime: dateTime,
    modifiedTime: dateTime,
    revision: integer,
  },
  ['id', 'userId', 'mediaType', 'status', 'createdTime', 'revision'],
);

export const DEVICE_LOG = object(
  {
    id: string(),
    userId: string(),
    digestMD5: string(),
    mediaType: string(),
    size: integer,
    createdTime: dateTime,
    startAt: dateTime,
    endAt: dateTime,
    startAtTime: dateTime,
    endAtTime: dateTime,
    revision: integer,
  },
  ['id', 'userId', 'digestMD5', 'mediaType', 'size', 'createdTime', 'startAtTime', 'endAtTime'],
);

/** Headers a success may carry, by the names route metadata uses. */
export const RESPONSE_HEADERS: Record<string, { description: string; schema: JsonSchema }> = {
  'X-Tidepool-Session-Token': {
    description: 'The session token (an access token) to send on later calls',
    schema: string(),
  },
  Digest: { description: 'The MD5 of the content: `MD5=<base64>`', schema: string() },
  'Content-Length': { description: 'The size of the content in bytes', schema: string() },
  'Content-Disposition': { description: 'Always `attachment`: stored content is never rendered', schema: string() },
  'Start-At': { description: "The start of the log's time window", schema: dateTime },
  'End-At': { description: "The end of the log's time window", schema: dateTime },
};

/** What the path's parameters are, by name. */
export const PATH_PARAMETERS: Record<string, JsonSchema> = {
  userId: { type: 'string', pattern: USER_ID_PATTERN.source, description: 'An account id' },
  sharerId: { type: 'string', pattern: USER_ID_PATTERN.source, description: 'The account that shares its data' },
  clinicianId: { type: 'string', description: "The clinician's account id" },
  patientId: { type: 'string', description: "The patient's account id" },
  clinicId: { type: 'string', pattern: '^[0-9a-f]{24}$', description: 'A clinic id' },
  patientTagId: { type: 'string', pattern: '^[0-9a-f]{24}$', description: 'A patient tag id' },
  blobId: { type: 'string', pattern: '^[0-9a-f]{32}$', description: 'A blob id' },
  id: { type: 'string', description: 'A device log id' },
  datasetId: { type: 'string', description: 'A dataset (upload) id' },
  inviteId: { type: 'string', description: 'An invitation id (its `key`)' },
  shareCode: { type: 'string', description: "A clinic's share code" },
  token: { type: 'string', description: 'A session token to check' },
  permission: legacyEnum(PERMISSION_NAME),
  realm: { type: 'string', enum: REALMS },
};

export const queryParameter = (name: string, schema: JsonSchema, description?: string, required = false) =>
  ({ name, in: 'query', schema, required, ...(description && { description }) }) satisfies ParameterDoc;

export const headerParameter = (name: string, schema: JsonSchema, description: string, required = true) =>
  ({ name, in: 'header', schema, required, description }) satisfies ParameterDoc;

/** A parameter `listParameter` reads: repeated, or values separated by commas. */
export const listQuery = (name: string, items: JsonSchema, description: string) =>
  queryParameter(name, { type: 'array', items, maxItems: MAX_LIST_ENTRIES }, description);

/** `?page=&size=` as `assertLegacyPaging` checks them. */
export const LEGACY_PAGING: readonly ParameterDoc[] = [
  queryParameter('page', { type: 'integer', minimum: 0, default: 0 }, 'The page, from 0'),
  queryParameter(
    'size',
    { type: 'integer', minimum: 1, maximum: LEGACY_PAGE_SIZE.max, default: LEGACY_PAGE_SIZE.default },
    'Rows per page',
  ),
];
