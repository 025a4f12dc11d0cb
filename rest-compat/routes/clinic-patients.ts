import { invalid } from '../../src/kernel/errors';
import { jsonObject, withTypes } from '../body';
import { PERMISSION_NAME, SUMMARY_PERIOD } from '../enums';
import { JsonText, type RestRequest, type RestRoute, type RouteReads } from '../route';
import { CLINIC, CLINIC_FIELDS, legacyClinic, OFFSET_PAGING, offsetPaging } from './clinics';
import { permissionSet } from './permissions';
import { clinicPatientSummaryJson } from '../patient-summary';
import type { KindFilter, SummaryFilter } from '../../src/domains/clinics/patient-filters';
import { patientListQuery } from '../patient-list-query';
import { statColumn } from '../../src/domains/glucose/period-stats';
import { DATA_SOURCE_FIELDS, legacyDataSources } from './tide';
import { arrayOf, graphqlInput, integer, object, PERMISSION_SET } from '../openapi/schemas';
import { PATIENT, PATIENT_LIST_PARAMETERS } from '../openapi/clinic-patients';

export const TAG_ID_EXAMPLE = '65a1b2c3d4e5f60718293a4b';
export const PATIENT_EXAMPLE = {
  fullName: 'Jamie Doe',
  birthDate: '2012-04-30',
  mrn: 'MRN-0042',
  tags: [TAG_ID_EXAMPLE],
};

/** A clinic patient's fields, asked under their GraphQL names. */
export const PATIENT_FIELDS = `userId fullName birthDate email mrn tags { id } permissions reviews { clinicianId time }
  dataSources { ${DATA_SOURCE_FIELDS} } createdTime updatedTime`;

type PatientData = Record<string, unknown> & {
  userId: string;
  tags: { id: string }[];
  permissions: string[];
  reviews: { clinicianId: string; time: string }[];
};

/**
 * A patient as Tidepool's clinic service serialises it: `fullName`, `birthDate`, `tags`,
 * `dataSources` (null until the data-source service reports some) and `reviews` always present, other
 * fields left out when empty; permissions as a permission set; no provider connection requests.
 * Its `summary` comes last (summarisedPatient).
 */
export function legacyPatient(value: unknown): Record<string, unknown> {
  const { userId, tags, permissions, reviews, email, mrn, birthDate, dataSources, ...fields } = value as PatientData;
  return {
    id: userId,
    ...fields,
    birthDate,
    ...(email === null ? {} : { email }),
    ...(mrn === null ? {} : { mrn }),
    tags: tags.map((tag) => tag.id),
    permissions: permissionSet(permissions),
    dataSources: legacyDataSources(dataSources),
    reviews,
    connectionRequests: { abbott: [], dexcom: [], twiist: [] },
  };
}

/**
 * A patient as JSON text with its `summary` after its other fields, as the glucose service keeps
 * it (clinicPatientSummaryJson); `offset` shows the previous periods in their place.
 */
async function summarisedPatient(value: unknown, { scope, services }: RouteReads, offset = false): Promise<JsonText> {
  const json = JSON.stringify(legacyPatient(value));
  const summary = await clinicPatientSummaryJson(services.glucose, scope, value as PatientData, { offset });
  return summary === undefined ? new JsonText(json) : new JsonText(json.slice(0, -1), ',"summary":', summary, '}');
}

export const payloadPatient = (field: string) => (data: Record<string, unknown>) =>
  legacyPatient((data[field] as { patient: unknown }).patient);

/**
 * The patient record fields a body may carry; response-only ones clients echo back (id, times,
 * reviews, ...) are ignored, and so is `email` where the account's own address is the record's.
 */
export function patientRecord(body: Record<string, unknown>, { email = true } = {}) {
  withTypes(body, { fullName: 'string', birthDate: 'string', email: 'string', mrn: 'string', tags: 'strings' });
  const { fullName, birthDate, mrn, tags } = body;
  return email ? { fullName, birthDate, email: body.email, mrn, tags } : { fullName, birthDate, mrn, tags };
}

/** `{"view":{},"upload":{}}` → `["VIEW","UPLOAD"]`; each value must be an empty object. */
export function permissionNames(value: unknown, field = 'permissions'): string[] {
  const set = jsonObject(value, `"${field}"`);
  const names = Object.entries(set).map(([name, granted]) => {
    const empty =
      granted !== null && typeof granted === 'object' && !Array.isArray(granted) && !Object.keys(granted).length;
    if (!empty) throw invalid(`Permission "${name}" must have an empty object {} as its value`, field);
    return name;
  });
  return PERMISSION_NAME.values(names, field);
}

/** A sort field's GraphQL enum value: `timeCGMUsePercent` → `TIME_CGM_USE_PERCENT`. */
const sortEnum = (field: string) => statColumn(field).toUpperCase();

/** A kind's summary filter as the GraphQL `CgmPatientFilter`/`BgmPatientFilter`. */
const kindVariables = (given: KindFilter | null | undefined) =>
  given && {
    ...given.statistics,
    ...(given.lastDataFrom ? { lastDataFrom: given.lastDataFrom.toISOString() } : {}),
    ...(given.lastDataTo ? { lastDataTo: given.lastDataTo.toISOString() } : {}),
  };

const summaryVariables = (filter: SummaryFilter | null | undefined) =>
  filter && {
    // Tidepool's filters are in mmol/L, whatever the clinic prefers.
    units: 'MMOL_L',
    period: SUMMARY_PERIOD.value(filter.period!, 'period'),
    usePreviousPeriod: filter.previous,
    cgm: kindVariables(filter.cgm),
    bgm: kindVariables(filter.bgm),
  };

/** The list's query (shared with its CSV, see rest-compat/patient-list-query.ts) as the GraphQL variables. */
function patientListVariables(request: RestRequest) {
  const { filter, order } = patientListQuery(request);
  return {
    filter: {
      search: filter.search ?? null,
      tags: filter.tags ?? null,
      lastReviewed: filter.lastReviewed?.toISOString() ?? null,
      ...summaryVariables(filter.summary),
    },
    orderBy: order && {
      field: sortEnum(order.field),
      direction: order.descending ? 'DESC' : 'ASC',
      ...(order.summary && {
        summary: order.summary.kind.toUpperCase(),
        period: SUMMARY_PERIOD.value(order.summary.period, 'period'),
        usePreviousPeriod: order.summary.previous,
      }),
    },
  };
}

const PATIENT_PAGES = offsetPaging(['clinic', 'patients']);

export const ids = ({ params }: RestRequest) => ({ clinicId: params.clinicId, userId: params.patientId });

export const clinicPatientRoutes: RestRoute[] = [
  {
    method: 'get',
    path: '/v1/clinics/:clinicId/patients',
    doc: {
      tag: 'Clinic patients',
      summary: "A clinic's patients, filtered and sorted, with their summaries",
      parameters: [...PATIENT_LIST_PARAMETERS, ...OFFSET_PAGING],
      response: object({ data: arrayOf(PATIENT), meta: object({ count: integer, totalCount: integer }) }, [
        'data',
        'meta',
      ]),
      tidepool: 'clinic.v1.yaml#ListPatients',
    },
    document: `query ($id: ID!, $filter: ClinicPatientFilter, $orderBy: ClinicPatientOrder, $first: Int, $after: String, $offset: Int) {
      clinic(id: $id) { patientCount patients(filter: $filter, orderBy: $orderBy, first: $first, after: $after, offset: $offset) {
        totalCount nodes { ${PATIENT_FIELDS} } pageInfo { hasNextPage endCursor } } } }`,
    variables: (request) => ({
      id: request.params.clinicId,
      ...patientListVariables(request),
      ...PATIENT_PAGES.variables(request),
    }),
    pages: PATIENT_PAGES.pages,
    respond: async (data, _reply, request, reads) => {
      const clinic = data.clinic as { patientCount: number; patients: { totalCount: number } };
      const rows = PATIENT_PAGES.rows<Record<string, unknown>>(data, request);
      // Tidepool's offsetPeriods shows the previous periods in each patient's summary.
      const { previous } = patientListQuery(request);
      // Side by side, so that the glucose service's loaders read the page's summaries at once.
      const patients = await Promise.all(rows.map((patient) => summarisedPatient(patient, reads, previous)));
      const meta = { count: clinic.patients.totalCount, totalCount: clinic.patientCount };
      return new JsonText('{"data":[', JsonText.joined(patients), `],"meta":${JSON.stringify(meta)}}`);
    },
    status: 200,
  },
  {
    method: 'post',
    path: '/v1/clinics/:clinicId/patients',
    doc: {
      tag: 'Clinic patients',
      summary: 'Create a custodial account as a patient of the clinic',
      body: {
        schema: graphqlInput('CreateClinicPatientInput', ['clinicId']),
        example: { ...PATIENT_EXAMPLE, email: 'jamie@example.com' },
      },
      response: PATIENT,
      errors: [409],
      tidepool: 'clinic.v1.yaml#CreatePatientAccount',
    },
    document: `mutation ($input: CreateClinicPatientInput!) { createClinicPatient(input: $input) { patient { ${PATIENT_FIELDS} } } }`,
    variables: ({ params, body }) => ({ input: { clinicId: params.clinicId, ...patientRecord(jsonObject(body)) } }),
    respond: payloadPatient('createClinicPatient'),
    status: 200,
  },
  {
    method: 'get',
    path: '/v1/clinics/:clinicId/patients/:patientId',
    doc: {
      tag: 'Clinic patients',
      summary: 'A patient of a clinic',
      response: PATIENT,
      tidepool: 'clinic.v1.yaml#GetPatient',
    },
    document: `query ($clinicId: ID!, $userId: ID!) { clinic(id: $clinicId) { patient(userId: $userId) { ${PATIENT_FIELDS} } } }`,
    variables: ids,
    respond: async (data, _reply, _request, reads) =>
      summarisedPatient((data.clinic as { patient: unknown }).patient, reads),
    status: 200,
  },
  {
    method: 'post',
    path: '/v1/clinics/:clinicId/patients/:patientId',
    doc: {
      tag: 'Clinic patients',
      summary: 'Make an existing account a patient of the clinic (servers only)',
      body: {
        schema: {
          allOf: [
            graphqlInput('AddClinicPatientInput', ['clinicId', 'userId', 'permissions']),
            object({ permissions: PERMISSION_SET }, ['permissions']),
          ],
        },
        example: { ...PATIENT_EXAMPLE, permissions: { view: {}, upload: {} } },
      },
      response: PATIENT,
      errors: [409],
      tidepool: 'clinic.v1.yaml#CreatePatientFromUser',
    },
    document: `mutation ($input: AddClinicPatientInput!) { addClinicPatient(input: $input) { patient { ${PATIENT_FIELDS} } } }`,
    variables: (request) => {
      const body = jsonObject(request.body);
      return {
        input: {
          ...ids(request),
          ...patientRecord(body, { email: false }),
          permissions: permissionNames(body.permissions),
        },
      };
    },
    respond: payloadPatient('addClinicPatient'),
    status: 200,
  },
  {
    method: 'put',
    path: '/v1/clinics/:clinicId/patients/:patientId',
    doc: {
      tag: 'Clinic patients',
      summary: "Replace a patient's record (fields left out are cleared)",
      body: { schema: graphqlInput('UpdateClinicPatientInput', ['clinicId', 'userId']), example: PATIENT_EXAMPLE },
      response: PATIENT,
      errors: [409],
      tidepool: 'clinic.v1.yaml#UpdatePatient',
    },
    document: `mutation ($input: UpdateClinicPatientInput!) { updateClinicPatient(input: $input) { patient { ${PATIENT_FIELDS} } } }`,
    // The body is the whole record (Tidepool's PUT): fields left out are cleared, and the required ones refused.
    variables: (request) => {
      const record = patientRecord(jsonObject(request.body));
      const whole = Object.fromEntries(Object.entries(record).map(([field, value]) => [field, value ?? null]));
      return { input: { ...ids(request), ...whole } };
    },
    respond: payloadPatient('updateClinicPatient'),
    status: 200,
  },
  {
    method: 'delete',
    path: '/v1/clinics/:clinicId/patients/:patientId',
    doc: {
      tag: 'Clinic patients',
      summary: 'Remove a patient from a clinic',
      tidepool: 'clinic.v1.yaml#DeletePatient',
    },
    document: 'mutation ($input: ClinicPatientInput!) { removeClinicPatient(input: $input) { userId } }',
    variables: (request) => ({ input: ids(request) }),
    status: 204,
  },
  {
    method: 'get',
    path: '/v1/patients/:userId/clinics',
    doc: {
      tag: 'Clinic patients',
      summary: 'The clinics an account is a patient of',
      parameters: OFFSET_PAGING,
      response: arrayOf(object({ patient: PATIENT, clinic: CLINIC }, ['patient', 'clinic'])),
      tidepool: 'clinic.v1.yaml#ListClinicsForPatient',
    },
    document: `query ($userId: ID!) { patientClinics(userId: $userId) { ${PATIENT_FIELDS} clinic { ${CLINIC_FIELDS} } } }`,
    variables: (request) => {
      PATIENT_PAGES.check(request);
      return { userId: request.params.userId };
    },
    // Tidepool answers each relationship as {patient, clinic}.
    respond: (data, _reply, request) => {
      const { limit, offset } = PATIENT_PAGES.check(request);
      return (data.patientClinics as Record<string, unknown>[])
        .slice(offset, offset + limit)
        .map(({ clinic, ...patient }) => ({ patient: legacyPatient(patient), clinic: legacyClinic(clinic) }));
    },
    status: 200,
  },
];
