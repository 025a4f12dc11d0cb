import { PERMISSION_NAME } from '../enums';
import type { RestRoute } from '../route';
import { permissionSet } from './permissions';
import { PERMISSION_SET } from '../openapi/schemas';
import { REVIEWS } from '../openapi/clinic-patients';
import { ids, permissionNames } from './clinic-patients';

/** A patient's reviews, and what it grants its clinic (Tidepool's clinic patient reviews and permissions). */
export const clinicPatientAccessRoutes: RestRoute[] = [
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
];
