import type { PatientRow } from '../../src/domains/clinics/patients.repository';
import { BY_ACCOUNT_ID } from '../../src/domains/clinics/patient-list-query';
import { PatientReview } from '../../src/domains/clinics/patients.types';
import type { PatientDataSource as PatientDataSourceRecord } from '../../src/domains/clinics/tide/data-sources';
import { PatientDataSource } from '../../src/domains/clinics/tide/tide.types';
import { invalid } from '../../src/kernel/errors';
import { MAX_LIST_ENTRIES, tooManyEntries } from '../../src/kernel/validation';
import { jsonObject, withTypes } from '../body';
import { PERMISSION_NAME } from '../enums';
import {
  JsonText,
  type RestRequest,
  type RestRoute,
  type RouteDoc,
  type RouteReads,
  type ServiceRoute,
} from '../route';
import { CLINIC, CLINIC_FIELDS, legacyClinic, OFFSET_PAGING, offsetPaging } from './clinics';
import { permissionSet } from './permissions';
import { clinicPatientSummaryJson } from '../patient-summary';
import { patientListQuery } from '../patient-list-query';
import { DATA_SOURCE_FIELDS, DATA_SOURCE_STATE, legacyDataSources } from './tide';
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

/** The patient list's description (its JSON row; the CSV download shares its path). */
const LIST_DOC: RouteDoc = {
  tag: 'Clinic patients',
  summary: "A clinic's patients, filtered and sorted, with their summaries",
  parameters: [...PATIENT_LIST_PARAMETERS, ...OFFSET_PAGING],
  response: object({ data: arrayOf(PATIENT), meta: object({ count: integer, totalCount: integer }) }, ['data', 'meta']),
  tidepool: 'clinic.v1.yaml#ListPatients',
};

/** The list's offset paging (`offset`, `limit` up to its maximum, read a page of 100 at a time). */
const PATIENT_PAGES = offsetPaging(['clinic', 'patients']);

/**
 * A patient record as the patient routes' document reads it (PATIENT_FIELDS, in its order), for
 * legacyPatient: tags the clinic no longer has left out, as the `tags` field leaves them.
 */
function patientFields(row: PatientRow, clinicTags: ReadonlySet<string>, sources: PatientDataSourceRecord[] | null) {
  const iso = (date: Date | null) => date?.toISOString() ?? null;
  return {
    userId: row.userId,
    fullName: row.fullName,
    birthDate: row.birthDate,
    email: row.email,
    mrn: row.mrn,
    tags: row.tags.filter((id) => clinicTags.has(id)).map((id) => ({ id })),
    permissions: PERMISSION_NAME.values(row.permissions, 'permissions'),
    reviews: row.reviews.map(PatientReview.from).map(({ clinicianId, time }) => ({ clinicianId, time: iso(time) })),
    dataSources: sources?.map(PatientDataSource.from).map((source) => ({
      dataSourceId: source.dataSourceId,
      providerName: source.providerName,
      state: DATA_SOURCE_STATE.value(source.state, 'state'),
      modifiedTime: iso(source.modifiedTime),
      expirationTime: iso(source.expirationTime),
      latestDataTime: iso(source.latestDataTime),
    })),
    createdTime: iso(row.createdTime),
    updatedTime: iso(row.updatedTime),
  };
}

/**
 * The patient list, straight from the services: its page reads the patients' summaries in its
 * own statement, and its counts beside it (PageCompanions), and each patient's JSON is shaped
 * once, by legacyPatient and the stored summary text, with no GraphQL run in between. The checks
 * and their order are the GraphQL field's: the clinic (400, 401, 404, 403), then the list's.
 */
export const clinicPatientListRoutes: ServiceRoute[] = [
  {
    method: 'get',
    path: '/v1/clinics/:clinicId/patients',
    doc: LIST_DOC,
    answer: async (request, reads) => {
      const { scope, services } = reads;
      const { filter, order, previous } = patientListQuery(request);
      if (filter.tags && filter.tags.length > MAX_LIST_ENTRIES) throw tooManyEntries('tags', filter.tags.length);
      const { first, offset } = PATIENT_PAGES.variables(request);
      const { clinicId } = request.params;
      await services.clinics.get(scope, clinicId);
      const clinicCopies = { previous };
      const pageAfter = (after: string | null) =>
        services.patients.list(scope, clinicId, filter, order ?? BY_ACCOUNT_ID, first, after, after ? null : offset, {
          clinicCopies,
          counts: true,
        });
      const list = await pageAfter(null);
      const read = [...list.page.nodes];
      for (let page = list.page; page.hasNextPage && !PATIENT_PAGES.pages.enough!(read.length, request);) {
        page = (await pageAfter(page.cursorAt(page.nodes.length - 1))).page;
        read.push(...page.nodes);
      }
      const [count, totalCount, tags] = await Promise.all([
        list.count(),
        services.patients.count(scope, clinicId),
        services.clinics.patientTags(scope, clinicId),
      ]);
      const clinicTags = new Set(tags.map((tag) => tag.id));
      // Side by side: the page primed the summaries and data sources, so none reads on its own.
      const patients = await Promise.all(
        PATIENT_PAGES.windowOf(read, request).map(async (row) => {
          const sources = await services.tide.dataSources(scope, clinicId, row.userId);
          return summarisedPatient(patientFields(row, clinicTags, sources), reads, previous);
        }),
      );
      return new JsonText('{"data":[', JsonText.joined(patients), `],"meta":${JSON.stringify({ count, totalCount })}}`);
    },
    status: 200,
  },
];

export const ids = ({ params }: RestRequest) => ({ clinicId: params.clinicId, userId: params.patientId });

export const clinicPatientRoutes: RestRoute[] = [
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
