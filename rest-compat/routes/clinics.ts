import { invalid } from '../../src/kernel/errors';
import { parseDateTime } from '../../src/kernel/validation';
import { booleanParameter, integerParameter, oneParameter } from '../query-parameters';
import { jsonObject, without, withTypes, type JsonType } from '../body';
import { BG_UNITS, CLINIC_SIZE, CLINIC_TYPE, CLINICIAN_ROLE } from '../enums';
import type { RestRequest, RestRoute } from '../route';
import { slicePaging } from '../paging';
import {
  arrayOf,
  boolean,
  dateTime,
  graphqlInput,
  legacyEnum,
  object,
  queryParameter,
  string,
} from '../openapi/schemas';

/** A clinic's fields, asked under their GraphQL names (the same as Tidepool's). */
export const CLINIC_FIELDS = `id name address city postalCode state country phoneNumbers { type number } clinicType
  clinicSize website preferredBgUnits timezone suppressedNotifications { patientClinicInvitation } shareCode
  canMigrate tier tierDescription patientTags { id name } lastDeletedPatientTag { id name } createdTime updatedTime`;

const withoutNulls = (object: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(object).filter(([, value]) => value !== null && value !== undefined));

/**
 * A clinic as Tidepool serialises it: enums in their legacy strings, absent fields left out
 * (phoneNumbers too when empty: Tidepool's schema wants at least one when present).
 */
export function legacyClinic(value: unknown): Record<string, unknown> {
  const clinic = value as Record<string, unknown>;
  const phones = (clinic.phoneNumbers as Record<string, unknown>[]).map(withoutNulls);
  const notifications = clinic.suppressedNotifications as Record<string, unknown> | null;
  return withoutNulls({
    ...clinic,
    clinicType: clinic.clinicType === null ? null : CLINIC_TYPE.legacy(clinic.clinicType as string),
    clinicSize: clinic.clinicSize === null ? null : CLINIC_SIZE.legacy(clinic.clinicSize as string),
    preferredBgUnits: BG_UNITS.legacy(clinic.preferredBgUnits as string),
    phoneNumbers: phones.length ? phones : null,
    suppressedNotifications: notifications && withoutNulls(notifications),
  });
}

/** Response-only fields clients echo back from a GET, and Tidepool fields this service does not keep: ignored. */
const IGNORED_FIELDS = [
  'id',
  'shareCode',
  'canMigrate',
  'createdTime',
  'updatedTime',
  'tier',
  'tierDescription',
  'patientTags',
  'lastDeletedPatientTag',
  'sites',
];

const TEXT_FIELDS: Record<string, JsonType> = {
  name: 'string',
  address: 'string',
  city: 'string',
  postalCode: 'string',
  state: 'string',
  country: 'string',
  website: 'string',
  timezone: 'string',
};

/** A Tidepool clinic body → the GraphQL input: legacy enum strings translated, lists checked as lists. */
export function clinicInput({ body }: RestRequest): Record<string, unknown> {
  const fields = withTypes(without(jsonObject(body), IGNORED_FIELDS), TEXT_FIELDS);
  const phoneNumbers = fields.phoneNumbers;
  if (phoneNumbers != null && !Array.isArray(phoneNumbers))
    throw invalid('"phoneNumbers" must be a list of phone numbers', 'phoneNumbers');
  const translate = (field: string, values: typeof CLINIC_TYPE) =>
    fields[field] == null ? fields[field] : values.value(fields[field], field);
  return {
    ...fields,
    clinicType: translate('clinicType', CLINIC_TYPE),
    clinicSize: translate('clinicSize', CLINIC_SIZE),
    preferredBgUnits: translate('preferredBgUnits', BG_UNITS),
  };
}

/** Tidepool's list paging: `limit` (1 to 1000, 10 when omitted) rows after `offset`. */
export const LIMIT = { default: 10, max: 1000 } as const;

/**
 * Offset paging (`?offset=&limit=`) over the connection at `path`, as `slicePaging` reads it;
 * checked when the variables are made, so a bad limit is refused first.
 */
export function offsetPaging(path: readonly string[]) {
  return slicePaging(
    path,
    ({ query }: RestRequest) => {
      const limit = integerParameter(query, 'limit') ?? LIMIT.default;
      const offset = integerParameter(query, 'offset') ?? 0;
      if (limit < 1 || limit > LIMIT.max) throw invalid(`limit must be an integer from 1 to ${LIMIT.max}`, 'limit');
      if (offset < 0) throw invalid('offset must be an integer of at least 0', 'offset');
      return { limit, offset };
    },
    ({ limit, offset }) => ({ start: offset, end: offset + limit }),
  );
}

/** `?offset=&limit=` as `offsetPaging` checks them. */
export const OFFSET_PAGING = [
  queryParameter('offset', { type: 'integer', minimum: 0, default: 0 }, 'Rows to skip'),
  queryParameter(
    'limit',
    { type: 'integer', minimum: 1, maximum: LIMIT.max, default: LIMIT.default },
    'Rows to answer',
  ),
];

/** A clinic as Tidepool serialises it (absent fields left out). */
export const CLINIC = object(
  {
    id: string(),
    name: string(),
    shareCode: string(),
    clinicType: legacyEnum(CLINIC_TYPE),
    clinicSize: legacyEnum(CLINIC_SIZE),
    preferredBgUnits: legacyEnum(BG_UNITS),
    timezone: string(),
    phoneNumbers: { type: 'array', items: object({ type: string(), number: string() }, ['number']), minItems: 1 },
    patientTags: { type: 'array', items: object({ id: string(), name: string() }, ['id', 'name']) },
    canMigrate: boolean,
    tier: string(),
    tierDescription: string(),
    createdTime: dateTime,
    updatedTime: dateTime,
  },
  [
    'id',
    'name',
    'shareCode',
    'preferredBgUnits',
    'canMigrate',
    'tier',
    'tierDescription',
    'createdTime',
    'updatedTime',
  ],
);

/** A clinician (a member, or an invitation to become one) as Tidepool serialises it. */
export const CLINICIAN = object(
  {
    id: string(),
    inviteId: string(),
    email: string(),
    name: string(),
    roles: { type: 'array', items: legacyEnum(CLINICIAN_ROLE) },
    createdTime: dateTime,
    updatedTime: dateTime,
  },
  ['roles'],
);

function clinicFilter({ query }: RestRequest) {
  const time = (name: string) => {
    const value = oneParameter(query, name);
    return value === undefined ? undefined : parseDateTime(value, name).toISOString();
  };
  return withoutNulls({
    shareCode: oneParameter(query, 'shareCode'),
    createdTimeStart: time('createdTimeStart'),
    createdTimeEnd: time('createdTimeEnd'),
    ehrEnabled: booleanParameter(query, 'ehrEnabled'),
  });
}

/** A clinician's fields, asked under their GraphQL names. */
export const CLINICIAN_FIELDS = 'clinicId userId inviteId email name roles createdTime updatedTime';

/** A clinician as Tidepool serialises it: `id` for the member's account, absent fields left out. */
export function legacyClinician(value: unknown): Record<string, unknown> {
  const { userId, clinicId: _clinic, ...clinician } = value as Record<string, unknown>;
  return withoutNulls({ id: userId, ...clinician });
}

const CLINIC_PAGES = offsetPaging(['clinics']);

const CLINIC_EXAMPLE = {
  name: 'Riverside Diabetes Clinic',
  clinicType: 'provider_practice',
  clinicSize: '0-249',
  country: 'US',
  timezone: 'America/Chicago',
  preferredBgUnits: 'mg/dL',
};
const CLINICIAN_CLINIC_PAGES = offsetPaging(['clinicsOfClinician']);

const payloadClinic = (field: string) => (data: Record<string, unknown>) =>
  legacyClinic((data[field] as { clinic: unknown }).clinic);

export const clinicRoutes: RestRoute[] = [
  {
    method: 'get',
    path: '/v1/clinics',
    doc: {
      tag: 'Clinics',
      summary: 'The clinics the caller belongs to (all, for servers), or the one with a share code',
      parameters: [
        queryParameter('shareCode', string(), 'Only the clinic with this share code'),
        queryParameter('createdTimeStart', dateTime, 'Only clinics created at or after this time'),
        queryParameter('createdTimeEnd', dateTime, 'Only clinics created before this time'),
        queryParameter('ehrEnabled', boolean, 'Only clinics with (or without) EHR integration'),
        ...OFFSET_PAGING,
      ],
      response: arrayOf(CLINIC),
      tidepool: 'clinic.v1.yaml#ListClinics',
    },
    document: `query ($filter: ClinicFilter, $first: Int, $after: String, $offset: Int) {
      clinics(filter: $filter, first: $first, after: $after, offset: $offset) { nodes { ${CLINIC_FIELDS} } pageInfo { hasNextPage endCursor } } }`,
    variables: (request) => {
      return { filter: clinicFilter(request), ...CLINIC_PAGES.variables(request) };
    },
    pages: CLINIC_PAGES.pages,
    respond: (data, _reply, request) => CLINIC_PAGES.rows(data, request).map(legacyClinic),
    status: 200,
  },
  {
    method: 'post',
    path: '/v1/clinics',
    doc: {
      tag: 'Clinics',
      summary: 'Create a clinic; the caller becomes its admin',
      body: { schema: graphqlInput('CreateClinicInput'), example: CLINIC_EXAMPLE },
      response: CLINIC,
      errors: [409],
      tidepool: 'clinic.v1.yaml#CreateClinic',
    },
    document: `mutation ($input: CreateClinicInput!) { createClinic(input: $input) { clinic { ${CLINIC_FIELDS} } } }`,
    variables: (request) => ({ input: clinicInput(request) }),
    respond: payloadClinic('createClinic'),
    status: 200,
  },
  {
    method: 'get',
    path: '/v1/clinics/share_code/:shareCode',
    doc: {
      tag: 'Clinics',
      summary: 'The clinic with a share code',
      response: CLINIC,
      tidepool: 'clinic.v1.yaml#GetClinicByShareCode',
    },
    document: `query ($code: String!) { clinicByShareCode(shareCode: $code) { ${CLINIC_FIELDS} } }`,
    variables: ({ params }) => ({ code: params.shareCode }),
    respond: (data) => legacyClinic(data.clinicByShareCode),
    status: 200,
  },
  {
    method: 'get',
    path: '/v1/clinics/:clinicId',
    doc: { tag: 'Clinics', summary: 'A clinic', response: CLINIC, tidepool: 'clinic.v1.yaml#GetClinic' },
    document: `query ($id: ID!) { clinic(id: $id) { ${CLINIC_FIELDS} } }`,
    variables: ({ params }) => ({ id: params.clinicId }),
    respond: (data) => legacyClinic(data.clinic),
    status: 200,
  },
  {
    method: 'put',
    path: '/v1/clinics/:clinicId',
    doc: {
      tag: 'Clinics',
      summary: 'Update a clinic',
      body: { schema: graphqlInput('UpdateClinicInput', ['id']), example: CLINIC_EXAMPLE },
      response: CLINIC,
      errors: [409],
      tidepool: 'clinic.v1.yaml#UpdateClinic',
    },
    document: `mutation ($input: UpdateClinicInput!) { updateClinic(input: $input) { clinic { ${CLINIC_FIELDS} } } }`,
    variables: (request) => ({ input: { ...clinicInput(request), id: request.params.clinicId } }),
    respond: payloadClinic('updateClinic'),
    status: 200,
  },
  {
    method: 'get',
    path: '/v1/clinicians/:userId/clinics',
    doc: {
      tag: 'Clinics',
      summary: 'The clinics an account is a clinician of, with its membership in each',
      parameters: OFFSET_PAGING,
      response: arrayOf(object({ clinician: CLINICIAN, clinic: CLINIC }, ['clinician', 'clinic'])),
      tidepool: 'clinic.v1.yaml#ListClinicsForClinician',
    },
    document: `query ($userId: ID!, $first: Int, $after: String, $offset: Int) {
      clinicsOfClinician(userId: $userId, first: $first, after: $after, offset: $offset) {
        nodes { ${CLINIC_FIELDS} clinician(userId: $userId) { ${CLINICIAN_FIELDS} } }
        pageInfo { hasNextPage endCursor } } }`,
    variables: (request) => {
      return { userId: request.params.userId, ...CLINICIAN_CLINIC_PAGES.variables(request) };
    },
    pages: CLINICIAN_CLINIC_PAGES.pages,
    // Tidepool answers each membership as {clinician, clinic}.
    respond: (data, _reply, request) =>
      CLINICIAN_CLINIC_PAGES.rows<Record<string, unknown>>(data, request).map(({ clinician, ...clinic }) => ({
        clinician: legacyClinician(clinician),
        clinic: legacyClinic(clinic),
      })),
    status: 200,
  },
];
