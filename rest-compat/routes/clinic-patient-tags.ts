import { invalid } from '../../src/kernel/errors';
import { jsonObject, withTypes } from '../body';
import type { RestRoute } from '../route';
import { object, string } from '../openapi/schemas';
import { PATIENT_TAG } from '../openapi/clinic-patients';

const TAG_BODY = object({ name: string() }, ['name']);

/** A tag body's name, required; assertTagName checks it in the service. */
function tagName(body: unknown): unknown {
  const fields = withTypes(jsonObject(body), { name: 'string' });
  if (fields.name == null) throw invalid('name is required', 'name');
  return fields.name;
}

/** A clinic's patient tags. */
export const clinicPatientTagRoutes: RestRoute[] = [
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
];
