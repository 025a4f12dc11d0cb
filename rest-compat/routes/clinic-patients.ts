import { invalid } from '../../src/kernel/errors';
import { jsonObject, optionalJsonObject, withTypes } from '../body';
import { PERMISSION_NAME, SUMMARY_PERIOD } from '../enums';
import type { RestRequest, RestRoute } from '../route';
import { CLINIC, CLINIC_FIELDS, legacyClinic, OFFSET_PAGING, offsetPaging } from './clinics';
import { permissionSet } from './permissions';
import { legacySummary, SUMMARY_ALIASES, SUMMARY_FIELDS, summaryFields } from '../patient-summary';
import type { KindFilter, SummaryFilter } from '../../src/domains/clinics/patient-filters';
import { patientListQuery } from '../patient-list-query';
import { statColumn } from '../../src/domains/glucose/period-stats';
import { DATA_SOURCE_FIELDS, legacyDataSources } from './tide';
import { arrayOf, graphqlInput, integer, object, PERMISSION_SET, string } from '../openapi/schemas';
import { PATIENT, PATIENT_INVITE, PATIENT_LIST_PARAMETERS, PATIENT_TAG, REVIEWS } from '../openapi/clinic-patients';

const TAG_BODY = object({ name: string() }, ['name']);
const TAG_ID_EXAMPLE = '65a1b2c3d4e5f60718293a4b';
const PATIENT_EXAMPLE = { fullName: 'Jamie Doe', birthDate: '2012-04-30', mrn: 'MRN-0042', tags: [TAG_ID_EXAMPLE] };

/** A clinic patient's fields, asked under their GraphQL names. */
const PATIENT_FIELDS = `userId fullName birthDate email mrn tags { id } permissions reviews { clinicianId time }
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
 */
function legacyPatient(value: unknown, { offsetPeriods = false } = {}): Record<string, unknown> {
  const { userId, tags, permissions, reviews, email, mrn, birthDate, dataSources, ...fields } = value as PatientData;
  const summary = legacySummary(fields, { offset: offsetPeriods });
  const patient = Object.fromEntries(Object.entries(fields).filter(([name]) => !SUMMARY_ALIASES.includes(name)));
  return {
    id: userId,
    ...patient,
    birthDate,
    ...(email === null ? {} : { email }),
    ...(mrn === null ? {} : { mrn }),
    tags: tags.map((tag) => tag.id),
    permissions: permissionSet(permissions),
    dataSources: legacyDataSources(dataSources),
    reviews,
    connectionRequests: { abbott: [], dexcom: [], twiist: [] },
    ...(summary ? { summary } : {}),
  };
}

const payloadPatient = (field: string) => (data: Record<string, unknown>) =>
  legacyPatient((data[field] as { patient: unknown }).patient);

/**
 * The patient record fields a body may carry; response-only ones clients echo back (id, times,
 * reviews, ...) are ignored, and so is `email` where the account's own address is the record's.
 */
function patientRecord(body: Record<string, unknown>, { email = true } = {}) {
  withTypes(body, { fullName: 'string', birthDate: 'string', email: 'string', mrn: 'string', tags: 'strings' });
  const { fullName, birthDate, mrn, tags } = body;
  return email ? { fullName, birthDate, email: body.email, mrn, tags } : { fullName, birthDate, mrn, tags };
}

/** `{"view":{},"upload":{}}` → `["VIEW","UPLOAD"]`; each value must be an empty object. */
function permissionNames(value: unknown, field = 'permissions'): string[] {
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
  const { filter, order, previous } = patientListQuery(request);
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
    // Tidepool's offsetPeriods also shows the previous periods in each patient's summary.
    offsetPeriods: previous,
  };
}

const PATIENT_PAGES = offsetPaging(['clinic', 'patients']);

/** A user's invitation to a clinic as Tidepool's confirmation service shows it: `key` is the id to accept it with. */
function legacyPatientInvite(value: unknown): Record<string, unknown> {
  const invite = value as {
    id: string;
    clinicId: string;
    userId: string;
    permissions: string[];
    createdTime: string;
    updatedTime: string;
  };
  return {
    key: invite.id,
    type: 'careteam_invitation',
    status: 'pending',
    clinicId: invite.clinicId,
    creatorId: invite.userId,
    creator: { userid: invite.userId },
    context: permissionSet(invite.permissions),
    created: invite.createdTime,
    modified: invite.updatedTime,
  };
}

const INVITE_FIELDS = 'id clinicId userId permissions createdTime updatedTime';
const ids = ({ params }: RestRequest) => ({ clinicId: params.clinicId, userId: params.patientId });

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
    document: `query ($id: ID!, $filter: ClinicPatientFilter, $orderBy: ClinicPatientOrder, $first: Int, $after: String, $offset: Int, $offsetPeriods: Boolean!) {
      clinic(id: $id) { patientCount patients(filter: $filter, orderBy: $orderBy, first: $first, after: $after, offset: $offset) {
        totalCount nodes { ${PATIENT_FIELDS} ${summaryFields('offsetPeriods')} } pageInfo { hasNextPage endCursor } } } }`,
    variables: (request) => ({
      id: request.params.clinicId,
      ...patientListVariables(request),
      ...PATIENT_PAGES.variables(request),
    }),
    pages: PATIENT_PAGES.pages,
    respond: (data, _reply, request) => {
      const clinic = data.clinic as { patientCount: number; patients: { totalCount: number } };
      return {
        data: PATIENT_PAGES.rows<Record<string, unknown>>(data, request).map((patient) =>
          legacyPatient(patient, { offsetPeriods: request.query.offsetPeriods === 'true' }),
        ),
        meta: { count: clinic.patients.totalCount, totalCount: clinic.patientCount },
      };
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
    document: `query ($clinicId: ID!, $userId: ID!) { clinic(id: $clinicId) { patient(userId: $userId) { ${PATIENT_FIELDS} ${SUMMARY_FIELDS} } } }`,
    variables: ids,
    respond: (data) => legacyPatient((data.clinic as { patient: unknown }).patient),
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
    method: 'put',
    path: '/v1/clinics/:clinicId/patients/:patientId/reviews',
    doc: {
      tag: 'Clinic patients',
      summary: 'Mark a patient reviewed now',
      response: REVIEWS,
      tidepool: 'clinic.v1.yaml#UpdatePatientReviews',
    },
    document:
      'mutation ($input: ClinicPatientInput!) { reviewClinicPatient(input: $input) { patient { reviews { clinicianId time } } } }',
    variables: (request) => ({ input: ids(request) }),
    respond: (data) => (data.reviewClinicPatient as { patient: { reviews: unknown } }).patient.reviews,
    status: 200,
  },
  {
    method: 'delete',
    path: '/v1/clinics/:clinicId/patients/:patientId/reviews',
    doc: {
      tag: 'Clinic patients',
      summary: 'Undo the latest review',
      response: REVIEWS,
      tidepool: 'clinic.v1.yaml#DeletePatientReviews',
    },
    document:
      'mutation ($input: ClinicPatientInput!) { revertClinicPatientReview(input: $input) { patient { reviews { clinicianId time } } } }',
    variables: (request) => ({ input: ids(request) }),
    respond: (data) => (data.revertClinicPatientReview as { patient: { reviews: unknown } }).patient.reviews,
    status: 200,
  },
  {
    method: 'put',
    path: '/v1/clinics/:clinicId/patients/:patientId/permissions',
    doc: {
      tag: 'Clinic patients',
      summary: "Set what the clinic may do with a patient's data",
      body: { schema: PERMISSION_SET, example: { view: {}, upload: {}, note: {} } },
      response: PERMISSION_SET,
      tidepool: 'clinic.v1.yaml#UpdatePatientPermissions',
    },
    document:
      'mutation ($input: UpdateClinicPatientPermissionsInput!) { updateClinicPatientPermissions(input: $input) { patient { permissions } } }',
    variables: (request) => ({ input: { ...ids(request), permissions: permissionNames(request.body, 'body') } }),
    respond: (data) => {
      const { patient } = data.updateClinicPatientPermissions as { patient: { permissions: string[] } | null };
      return permissionSet(patient?.permissions ?? []);
    },
    status: 200,
  },
  {
    method: 'delete',
    path: '/v1/clinics/:clinicId/patients/:patientId/permissions/:permission',
    doc: {
      tag: 'Clinic patients',
      summary: 'Give up one permission on a patient',
      tidepool: 'clinic.v1.yaml#DeletePatientPermission',
    },
    document:
      'mutation ($input: RevokeClinicPatientPermissionInput!) { revokeClinicPatientPermission(input: $input) { patient { userId } } }',
    variables: (request) => ({
      input: { ...ids(request), permission: PERMISSION_NAME.values([request.params.permission], 'permission')[0] },
    }),
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
  {
    method: 'post',
    path: '/v1/clinics/:clinicId/patient_tags',
    doc: {
      tag: 'Clinic patients',
      summary: 'Create a patient tag',
      body: { schema: TAG_BODY, example: { name: 'Pump users' } },
      response: PATIENT_TAG,
      errors: [409],
      tidepool: 'clinic.v1.yaml#CreatePatientTag',
    },
    document: 'mutation ($input: CreatePatientTagInput!) { createPatientTag(input: $input) { tag { id name } } }',
    variables: ({ params, body }) => ({ input: { clinicId: params.clinicId, name: tagName(body) } }),
    respond: (data) => (data.createPatientTag as { tag: unknown }).tag,
    status: 200,
  },
  {
    method: 'put',
    path: '/v1/clinics/:clinicId/patient_tags/:patientTagId',
    doc: {
      tag: 'Clinic patients',
      summary: 'Rename a patient tag',
      body: { schema: TAG_BODY, example: { name: 'Pump users' } },
      response: PATIENT_TAG,
      errors: [409],
      tidepool: 'clinic.v1.yaml#UpdatePatientTag',
    },
    document: 'mutation ($input: RenamePatientTagInput!) { renamePatientTag(input: $input) { tag { id name } } }',
    variables: ({ params, body }) => ({
      input: { clinicId: params.clinicId, tagId: params.patientTagId, name: tagName(body) },
    }),
    respond: (data) => (data.renamePatientTag as { tag: unknown }).tag,
    status: 200,
  },
  {
    method: 'delete',
    path: '/v1/clinics/:clinicId/patient_tags/:patientTagId',
    doc: {
      tag: 'Clinic patients',
      summary: 'Delete a patient tag (and remove it from every patient)',
      tidepool: 'clinic.v1.yaml#DeletePatientTag',
    },
    document: 'mutation ($input: DeletePatientTagInput!) { deletePatientTag(input: $input) { tagId } }',
    variables: ({ params }) => ({ input: { clinicId: params.clinicId, tagId: params.patientTagId } }),
    status: 204,
  },
  {
    method: 'post',
    path: '/confirm/send/invite/:userId/clinic',
    doc: {
      tag: 'Clinic patients',
      summary: "Invite a clinic, by its share code, to see an account's data",
      body: {
        schema: object({ shareCode: string(), permissions: PERMISSION_SET }, ['shareCode', 'permissions']),
        example: { shareCode: 'ABCD-EFGH-JKMN', permissions: { view: {}, upload: {} } },
      },
      response: PATIENT_INVITE,
      errors: [409],
    },
    document: `mutation ($input: InviteClinicInput!) { inviteClinic(input: $input) { invite { ${INVITE_FIELDS} } } }`,
    variables: ({ params, body }) => {
      const fields = withTypes(jsonObject(body), { shareCode: 'string' });
      if (fields.shareCode == null) throw invalid('shareCode is required', 'shareCode');
      return {
        input: { userId: params.userId, shareCode: fields.shareCode, permissions: permissionNames(fields.permissions) },
      };
    },
    respond: (data) => legacyPatientInvite((data.inviteClinic as { invite: unknown }).invite),
    status: 200,
  },
  {
    method: 'get',
    path: '/v1/clinics/:clinicId/invites/patients',
    doc: {
      tag: 'Clinic patients',
      summary: 'The invitations a clinic has received from patients',
      response: arrayOf(PATIENT_INVITE),
      tidepool: 'clinic.v1.yaml#GetPatientInvites',
    },
    document: `query ($id: ID!) { clinic(id: $id) { patientInvites { ${INVITE_FIELDS} } } }`,
    variables: ({ params }) => ({ id: params.clinicId }),
    respond: (data) => (data.clinic as { patientInvites: unknown[] }).patientInvites.map(legacyPatientInvite),
    status: 200,
  },
  {
    method: 'put',
    path: '/v1/clinics/:clinicId/invites/patients/:inviteId',
    doc: {
      tag: 'Clinic patients',
      summary: "Accept a patient's invitation: the account becomes a patient of the clinic",
      body: {
        schema: graphqlInput('AcceptPatientInviteInput', ['clinicId', 'inviteId']),
        required: false,
        example: { mrn: 'MRN-0042', tags: [TAG_ID_EXAMPLE] },
      },
      response: PATIENT,
      errors: [409],
      tidepool: 'clinic.v1.yaml#AcceptPatientInvitation',
    },
    document: `mutation ($input: AcceptPatientInviteInput!) { acceptPatientInvite(input: $input) { patient { ${PATIENT_FIELDS} } } }`,
    variables: ({ params, body }) => ({
      input: {
        clinicId: params.clinicId,
        inviteId: params.inviteId,
        ...patientRecord(optionalJsonObject(body), { email: false }),
      },
    }),
    respond: payloadPatient('acceptPatientInvite'),
    status: 200,
  },
  {
    method: 'delete',
    path: '/v1/clinics/:clinicId/invites/patients/:inviteId',
    doc: { tag: 'Clinic patients', summary: "Decline a patient's invitation" },
    document: `mutation ($input: RevokePatientInviteInput!) { revokePatientInvite(input: $input) { invite { id } } }`,
    variables: ({ params }) => ({ input: { clinicId: params.clinicId, inviteId: params.inviteId } }),
    status: 204,
  },
];

function tagName(body: unknown): unknown {
  const fields = withTypes(jsonObject(body), { name: 'string' });
  if (fields.name == null) throw invalid('name is required', 'name');
  return fields.name;
}
