import { invalid } from '../../../kernel/errors';
import { isStorableDateTime } from '../../../kernel/validation';
import { OBJECT_ID_PATTERN } from '../clinic-ids';

/**
 * A cloud data source of a patient (a Dexcom or Abbott account linked to Tidepool), as Tidepool's
 * data-source worker reports it to the clinic service, which keeps a copy on each clinic's
 * record of the patient. Times are ISO 8601 UTC.
 */
export interface PatientDataSource {
  dataSourceId?: string;
  providerName: string;
  state: DataSourceState;
  modifiedTime?: string;
  expirationTime?: string;
  latestDataTime?: string;
}

export const DATA_SOURCE_STATES = ['pending', 'pendingReconnect', 'connected', 'disconnected', 'error'] as const;
export type DataSourceState = (typeof DATA_SOURCE_STATES)[number];

/** More than any account links (one per provider); bounds what one request stores. */
export const MAX_DATA_SOURCES = 20;

const TIMES = ['modifiedTime', 'expirationTime', 'latestDataTime'] as const;

/**
 * The body of the data-sources operation (clinic.v1 dataSources.v1): a list of data sources, each
 * with a state and a provider name (1 to 100 characters), an optional 24-hex id and optional
 * date-times. Other fields are ignored; a wrong one is refused naming it.
 */
export function parseDataSources(body: unknown): PatientDataSource[] {
  if (!Array.isArray(body)) throw invalid('The body must be a JSON array of data sources', 'body');
  if (body.length > MAX_DATA_SOURCES) throw invalid(`A patient has at most ${MAX_DATA_SOURCES} data sources`, 'body');
  return body.map((item: unknown, index) => {
    const at = `[${index}]`;
    if (item === null || typeof item !== 'object' || Array.isArray(item))
      throw invalid(`${at} must be a data source object`, at);
    const fields = item as Record<string, unknown>;
    const { providerName, state, dataSourceId } = fields;
    if (typeof providerName !== 'string' || providerName.length < 1 || providerName.length > 100)
      throw invalid(`${at}.providerName must be a string of 1 to 100 characters`, `${at}.providerName`);
    if (typeof state !== 'string' || !(DATA_SOURCE_STATES as readonly string[]).includes(state))
      throw invalid(`${at}.state must be one of ${DATA_SOURCE_STATES.join(', ')}`, `${at}.state`);
    const source: PatientDataSource = { providerName, state: state as DataSourceState };
    if (dataSourceId !== undefined && dataSourceId !== null) {
      if (typeof dataSourceId !== 'string' || !OBJECT_ID_PATTERN.test(dataSourceId))
        throw invalid(`${at}.dataSourceId must be 24 lowercase hexadecimal characters`, `${at}.dataSourceId`);
      source.dataSourceId = dataSourceId;
    }
    for (const name of TIMES) {
      const value = fields[name];
      if (value === undefined || value === null) continue;
      if (typeof value !== 'string' || !isStorableDateTime(value))
        throw invalid(`${at}.${name} must be an RFC 3339 date-time`, `${at}.${name}`);
      source[name] = new Date(value).toISOString();
    }
    return source;
  });
}
