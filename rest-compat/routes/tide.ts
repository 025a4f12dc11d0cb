import { oneParameter, parseBoolParameter } from '../query-parameters';
import { isTideCategory, TIDE_STATS } from '../../src/domains/clinics/tide/categories';
import { parseDataSources } from '../../src/domains/clinics/tide/data-sources';
import { parseCutoff, parsePeriod, parseTags, TIDE_PERIODS } from '../../src/domains/clinics/tide/parameters';
import { TideCategoryValue } from '../../src/domains/clinics/tide/tide.types';
import { LegacyEnum, SUMMARY_PERIOD } from '../enums';
import type { RestRequest, RestRoute } from '../route';
import {
  arrayOf,
  boolean,
  dateTime,
  legacyEnum,
  listQuery,
  object,
  queryParameter,
  string,
  strings,
} from '../openapi/schemas';

/** Data-source states: GraphQL enum names ↔ Tidepool's strings. */
export const DATA_SOURCE_STATE = new LegacyEnum({
  pending: 'PENDING',
  pendingReconnect: 'PENDING_RECONNECT',
  connected: 'CONNECTED',
  disconnected: 'DISCONNECTED',
  error: 'ERROR',
});

/** A data source's fields under their GraphQL names (Tidepool's). */
export const DATA_SOURCE_FIELDS = 'dataSourceId providerName state modifiedTime expirationTime latestDataTime';

/** Data sources as Tidepool's clinic service serialises them: absent fields left out; null when none were reported. */
export function legacyDataSources(value: unknown): Record<string, unknown>[] | null {
  if (!Array.isArray(value)) return null;
  return (value as Record<string, unknown>[]).map((source) => {
    const present = Object.fromEntries(Object.entries(source).filter(([, field]) => field !== null));
    return { ...present, state: DATA_SOURCE_STATE.legacy(source.state as string) };
  });
}

/** Category keys ↔ GraphQL enum names (`timeCGMUsePercent` ↔ `TIME_CGM_USE_PERCENT`). */
const TIDE_CATEGORY = LegacyEnum.ofValues(TideCategoryValue);

/** A comma-separated (or repeated) parameter's items, empty ones dropped. */
function items(query: Record<string, unknown>, name: string): string[] | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value : [value])
    .flatMap((item) => (typeof item === 'string' ? item.split(',') : []))
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * Tidepool's TIDE query: the required parameters checked here so a bad one is a 400 naming it
 * (Tidepool validates them against its OpenAPI file first); `categories` keeps its known names in
 * order, and when empty or omitted asks the defaults.
 */
function tideVariables({ params, query }: RestRequest) {
  const period = parsePeriod(oneParameter(query, 'period'));
  const tags = parseTags(items(query, 'tags'));
  const lastDataCutoff = parseCutoff(oneParameter(query, 'lastDataCutoff')).toISOString();
  const named = items(query, 'categories');
  const categories = named?.length
    ? named.filter(isTideCategory).map((key) => TIDE_CATEGORY.value(key, 'categories'))
    : null;
  return {
    id: params.clinicId,
    period: SUMMARY_PERIOD.value(period, 'period'),
    tagIds: tags,
    lastDataCutoff,
    categories,
    excludeNoData: parseBoolParameter(query, 'excludeNoData') ?? false,
  };
}

const STAT_FIELDS = TIDE_STATS.join(' ');

const ENTRY_FIELDS = `patient { userId email fullName tags { id } reviews { clinicianId time }
  dataSources { ${DATA_SOURCE_FIELDS} } } lastData ${STAT_FIELDS}`;

type Entry = Record<string, unknown> & {
  patient: {
    userId: string;
    email: string | null;
    fullName: string;
    tags: { id: string }[];
    reviews: unknown[];
    dataSources: unknown;
  };
};

/** An entry as Tidepool's TideResultPatient: the patient's summary fields, absent statistics left out. */
function legacyEntry({ patient, ...stats }: Entry): Record<string, unknown> {
  return {
    patient: {
      id: patient.userId,
      ...(patient.email === null ? {} : { email: patient.email }),
      fullName: patient.fullName,
      tags: patient.tags.map((tag) => tag.id),
      reviews: patient.reviews,
      dataSources: legacyDataSources(patient.dataSources),
    },
    ...Object.fromEntries(Object.entries(stats).filter(([, value]) => value !== null)),
  };
}

/** A patient in a TIDE category, with the statistics it was placed by. */
const TIDE_ENTRY = object(
  {
    patient: object({ id: string(), email: string(), fullName: string(), tags: strings }, ['id', 'fullName', 'tags']),
    lastData: dateTime,
  },
  ['patient'],
);

interface Report {
  config: {
    schemaVersion: number;
    clinicId: string;
    period: string;
    lastDataCutoff: string;
    tagIds: string[];
    thresholds: Record<string, number>;
    filters: { name: string; expression: string }[];
  };
  categories: { category: string; entries: Entry[] }[];
  noData: Entry[] | null;
}

/** Tidepool's TideResponse: `config` and `results` keyed by category, noData among them. */
function legacyReport(report: Report): Record<string, unknown> {
  const { config } = report;
  const results: Record<string, unknown> = {};
  for (const { category, entries } of report.categories)
    results[TIDE_CATEGORY.legacy(category)] = entries.map(legacyEntry);
  if (report.noData) results.noData = report.noData.map(legacyEntry);
  return {
    config: {
      schemaVersion: config.schemaVersion,
      clinicId: config.clinicId,
      period: SUMMARY_PERIOD.legacy(config.period),
      lastDataCutoff: config.lastDataCutoff,
      highGlucoseThreshold: config.thresholds.highGlucoseMmol,
      veryHighGlucoseThreshold: config.thresholds.veryHighGlucoseMmol,
      extremeHighGlucoseThreshold: config.thresholds.extremeHighGlucoseMmol,
      lowGlucoseThreshold: config.thresholds.lowGlucoseMmol,
      veryLowGlucoseThreshold: config.thresholds.veryLowGlucoseMmol,
      tags: config.tagIds,
      filters: Object.fromEntries(config.filters.map((filter) => [filter.name, filter.expression])),
    },
    results,
  };
}

export const tideRoutes: RestRoute[] = [
  {
    method: 'get',
    path: '/v1/clinics/:clinicId/tide_report',
    doc: {
      tag: 'TIDE',
      summary: "A clinic's TIDE report: its tagged patients by the glucose category they fall in",
      parameters: [
        queryParameter('period', { type: 'string', enum: [...TIDE_PERIODS] }, 'The summary period', true),
        {
          ...listQuery('tags', string(), 'Patient tag ids; only patients carrying all of them are reported'),
          required: true,
        },
        queryParameter('lastDataCutoff', dateTime, 'Only patients with data at or after this time', true),
        listQuery('categories', legacyEnum(TIDE_CATEGORY), 'The categories, in order (the defaults when omitted)'),
        queryParameter('excludeNoData', boolean, 'Leave out the patients without data'),
      ],
      response: object(
        {
          config: object({ clinicId: string(), period: string(), lastDataCutoff: dateTime, tags: strings }, [
            'clinicId',
            'period',
            'lastDataCutoff',
            'tags',
          ]),
          results: { type: 'object', additionalProperties: arrayOf(TIDE_ENTRY) },
        },
        ['config', 'results'],
      ),
      tidepool: 'clinic.v1.yaml#TideReport',
    },
    document: `query ($id: ID!, $period: SummaryPeriod!, $tagIds: [ID!]!, $lastDataCutoff: DateTime!,
        $categories: [TideCategory!], $excludeNoData: Boolean) {
      clinic(id: $id) { tideReport(period: $period, tagIds: $tagIds, lastDataCutoff: $lastDataCutoff,
          categories: $categories, excludeNoData: $excludeNoData) {
        config { schemaVersion clinicId period lastDataCutoff tagIds
          thresholds { veryLowGlucoseMmol lowGlucoseMmol highGlucoseMmol veryHighGlucoseMmol extremeHighGlucoseMmol }
          filters { name expression } }
        categories { category entries { ${ENTRY_FIELDS} } }
        noData { ${ENTRY_FIELDS} } } } }`,
    variables: tideVariables,
    respond: (data) => legacyReport((data.clinic as { tideReport: Report }).tideReport),
    status: 200,
  },
  {
    method: 'put',
    path: '/v1/patients/:userId/data_sources',
    doc: {
      tag: 'TIDE',
      summary: "Replace an account's data sources, as the data-source service reports them (servers only)",
      body: {
        schema: arrayOf(
          object(
            {
              dataSourceId: string(),
              providerName: string(),
              state: legacyEnum(DATA_SOURCE_STATE),
              modifiedTime: dateTime,
              expirationTime: dateTime,
              latestDataTime: dateTime,
            },
            ['providerName', 'state'],
          ),
        ),
        example: [
          {
            dataSourceId: '65a1b2c3d4e5f60718293a4c',
            providerName: 'dexcom',
            state: 'connected',
            modifiedTime: '2024-01-02T03:04:05Z',
            latestDataTime: '2024-01-02T03:00:00Z',
          },
        ],
      },
      tidepool: 'clinic.v1.yaml#UpdatePatientDataSources',
    },
    document: `mutation ($input: UpdatePatientDataSourcesInput!) { updatePatientDataSources(input: $input) { userId } }`,
    variables: ({ params, body }) => ({
      input: {
        userId: params.userId,
        dataSources: parseDataSources(body).map((source) => ({
          ...source,
          state: DATA_SOURCE_STATE.value(source.state, 'state'),
        })),
      },
    }),
    status: 200,
  },
];
