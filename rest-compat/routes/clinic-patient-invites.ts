import { invalid } from '../../src/kernel/errors';
import { jsonObject, optionalJsonObject, withTypes } from '../body';
import type { RestRoute } from '../route';
import { permissionSet } from './permissions';
import { arrayOf, graphqlInput, object, PERMISSION_SET, string } from '../openapi/schemas';
import { PATIENT, PATIENT_INVITE } from '../openapi/clinic-patients';
import { permissionNames, PATIENT_FIELDS, payloadPatient, patientRecord, TAG_ID_EXAMPLE } from './clinic-patients';

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

/** A user's invitations to a clinic, which the clinic accepts or declines (Tidepool's confirmation service). */
export const clinicPatientInviteRoutes: RestRoute[] = [
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
