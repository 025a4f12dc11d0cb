import { FILTERABLE_STATS, isIntegerStat } from '../../src/domains/glucose/period-stats';
import { SUMMARY_KINDS } from '../../src/domains/clinics/patient-filters';
import { SUMMARY_PERIOD } from '../enums';
import type { ParameterDoc } from '../route';
import {
  arrayOf,
  boolean,
  dateTime,
  legacyEnum,
  listQuery,
  object,
  PERMISSION_SET,
  queryParameter,
  string,
  strings,
} from './schemas';

/** The wire shapes of clinic patients and their invitations, and the patient list's parameters. */

export const REVIEWS = arrayOf(object({ clinicianId: string(), time: dateTime }, ['clinicianId', 'time']));

export const PATIENT = object(
  {
    id: string(),
    fullName: string(),
    birthDate: { type: ['string', 'null'] },
    email: string(),
    mrn: string(),
    tags: strings,
    permissions: PERMISSION_SET,
    dataSources: { type: ['array', 'null'], items: object({ providerName: string(), state: string() }) },
    reviews: REVIEWS,
    summary: object({ cgmStats: { type: 'object' }, bgmStats: { type: 'object' } }),
    createdTime: dateTime,
    updatedTime: dateTime,
  },
  ['id', 'fullName', 'birthDate', 'tags', 'permissions', 'reviews'],
);

export const PATIENT_TAG = object({ id: string(), name: string() }, ['id', 'name']);

/** A user's invitation to a clinic, as the confirmation service shows it. */
export const PATIENT_INVITE = object(
  {
    key: string(),
    type: { const: 'careteam_invitation' },
    status: string(),
    clinicId: string(),
    creatorId: string(),
    creator: object({ userid: string() }),
    context: PERMISSION_SET,
    created: dateTime,
    modified: dateTime,
  },
  ['key', 'type', 'status', 'clinicId', 'creatorId', 'context'],
);

const NUMBER_FILTER = '^(>=|>|<=|<)[+-]?(\\d+(\\.\\d*)?|\\.\\d+)$';
const INTEGER_FILTER = '^(>=|>|<=|<)[+-]?\\d+$';

/** `cgm.<statistic>`, `bgm.<statistic>` and their `lastDataFrom`/`lastDataTo`, for every statistic clinics filter on. */
const SUMMARY_FILTERS: ParameterDoc[] = SUMMARY_KINDS.flatMap((kind) => [
  ...FILTERABLE_STATS[kind].map((statistic) =>
    queryParameter(
      `${kind}.${statistic}`,
      { type: 'string', pattern: isIntegerStat(statistic) ? INTEGER_FILTER : NUMBER_FILTER },
      `Only patients whose ${kind.toUpperCase()} ${statistic} compares so (\`>=1440\`, \`<0.04\`)`,
    ),
  ),
  queryParameter(
    `${kind}.lastDataFrom`,
    dateTime,
    `Only patients with ${kind.toUpperCase()} data at or after this time`,
  ),
  queryParameter(
    `${kind}.lastDataTo`,
    dateTime,
    `Only patients whose newest ${kind.toUpperCase()} data is before this time`,
  ),
]);

export const PATIENT_LIST_PARAMETERS: readonly ParameterDoc[] = [
  queryParameter('search', string(), 'Only patients whose name, email or MRN contains this'),
  listQuery('tags', { type: 'string', pattern: '^[0-9a-f]{24}$' }, 'Only patients with all of these tags'),
  queryParameter('lastReviewed', dateTime, 'Only patients last reviewed before this time'),
  queryParameter(
    'sort',
    { type: 'string', pattern: '^[+ -][A-Za-z]+$' },
    '`+` or `-` and fullName, birthDate, lastReviewed, or (with sortType) a summary date or statistic',
  ),
  queryParameter(
    'sortType',
    { type: 'string', enum: [...SUMMARY_KINDS] },
    'The summary a statistic sort or filter reads',
  ),
  queryParameter('period', legacyEnum(SUMMARY_PERIOD), 'The summary period filters and sorts read (14d when omitted)'),
  queryParameter('offsetPeriods', boolean, 'Read (and show) the period before instead'),
  ...SUMMARY_FILTERS,
];
