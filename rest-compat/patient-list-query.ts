import {
  isSummaryParameter,
  parsePatientListQuery,
  type PatientListQuery,
} from '../src/domains/clinics/patient-list-query';
import { listParameter, oneParameter } from './query-parameters';
import type { RestRequest } from './route';

const RECORD_PARAMETERS = ['search', 'sort', 'lastReviewed'];

/**
 * The patient list's query (Tidepool's parameters, each given once; `tags` a list), parsed by the
 * patients domain: what the JSON list and its CSV download both read.
 */
export function patientListQuery({ query }: Pick<RestRequest, 'query'>): PatientListQuery {
  const names = Object.keys(query).filter((name) => isSummaryParameter(name) || RECORD_PARAMETERS.includes(name));
  return parsePatientListQuery(
    Object.fromEntries(names.map((name) => [name, oneParameter(query, name)])),
    listParameter(query, 'tags'),
  );
}
