import { STAT_COLUMNS, type ExportedStatName } from '../glucose/period-stats';

/**
 * The patient list's index of the clinic copy of the statistics (clinic_patient_period_stats):
 * a list filtered by summaries alone is counted and paged in it (patient-list.repository.ts,
 * selectPages), so its cost is a pass over narrow index entries, not over the copy's rows of
 * about 700 bytes (migrations/Migration20261127194500_patient_list_index.ts says why).
 *
 * - Keyed by clinic, kind, period and previous (one clinic's period is one range), then the sort
 *   of the list asked most, time in range with missing values lowest as summarySql writes it,
 *   and the user id: that sort's page is the range's first entries that meet the filter.
 * - Holding the statistics of Tidepool's clinic filters (the TIDE thresholds), the list's
 *   summary columns and the last data date, so a filter or sort on these reads the index alone;
 *   one on any other statistic reads the copy's rows, as before, with the same answer.
 */
export const LIST_INDEX_NAME = 'clinic_period_stats_patient_list';

/** The sort the index is ordered by. */
export const LIST_INDEX_SORT: ExportedStatName = 'timeInTargetPercent';

/** The statistics the index holds besides its keys. */
export const LIST_INDEX_STATS: readonly ExportedStatName[] = [
  'timeCGMUsePercent',
  'timeInVeryLowPercent',
  'timeInAnyLowPercent',
  'timeInTargetPercent',
  'timeInAnyHighPercent',
  'timeInVeryHighPercent',
  'timeInExtremeHighPercent',
  'glucoseManagementIndicator',
  'averageGlucoseMmol',
];

/** The index as an entity index definition of `table`. */
export function patientListIndexes(table: string): { name: string; expression: string }[] {
  const included = ['last_data', ...LIST_INDEX_STATS.map((name) => STAT_COLUMNS[name])];
  return [
    {
      name: LIST_INDEX_NAME,
      expression:
        `create index "${LIST_INDEX_NAME}" on "${table}" ("clinic_id", "kind", "period", "previous", ` +
        `coalesce("${STAT_COLUMNS[LIST_INDEX_SORT]}", '-Infinity'::float8), "user_id") ` +
        `include (${included.map((column) => `"${column}"`).join(', ')})`,
    },
  ];
}
