import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf, staleReadsOf } from '../../../infra/database/sql-runner';
import { arrayLiteral, rowDate } from '../../../kernel/sql';
import { STAT_COLUMNS } from '../../glucose/period-stats';
import { CLINIC_PERIOD_STATS_TABLE } from '../clinic-patient-period-stats.entity';
import { PATIENT_COLUMNS, toPatient, type PatientRow } from '../patients.repository';
import {
  TIDE_CATEGORIES,
  TIDE_NO_DATA_AGE_MS,
  TIDE_NO_DATA_LIMIT,
  TIDE_PATIENT_LIMIT,
  TIDE_STATS,
  type TideCategoryKey,
  type TideStat,
} from './categories';
import type { PatientDataSource } from './data-sources';
import type { TideParameters } from './parameters';
import { categorySql } from './tide-indexes';

/**
 * The TIDE report's statement and the patients' data sources (`data_sources` of
 * `clinic_patients`). The service holds the rules; this holds the statements.
 */

/** A patient in the report: the clinic's record of it and its CGM statistics of the period. */
export interface TideRow {
  patient: PatientRow;
  dataSources: PatientDataSource[] | null;
  lastData: Date | null;
  /** Absent (null) statistics are those Tidepool's clinic copy leaves out. */
  stats: Record<TideStat, number | null>;
}

export interface TideRows {
  /** The clinical categories, in priority order, as far as the report reached (the stop rule). */
  categories: { category: TideCategoryKey; rows: TideRow[] }[];
  /** Null when the request excluded it. */
  noData: TideRow[] | null;
}

const column = (stat: TideStat) => STAT_COLUMNS[stat];
const PICKED_STATS = TIDE_STATS.map(column).join(', ');

/** Part of a statement: its SQL and its parameters, in order. */
interface Part {
  sql: string;
  params: unknown[];
}

/** What each pick selects of a patient (`p`) and its row of the period (`s`): the columns the report reads. */
const PICKED_OF_S = `p.user_id, lower(p.full_name) as name, p.data_sources, s.last_data, ${TIDE_STATS.map((stat) => `s.${column(stat)}`).join(', ')}`;

/** The clinic's tagged patients joined to their rows of the period in the clinic's copy of the statistics. */
function periodRows(clinicId: string, parameters: TideParameters): Part {
  return {
    sql: `from ${CLINIC_PERIOD_STATS_TABLE} s join clinic_patients p on p.clinic_id = s.clinic_id and p.user_id = s.user_id
       where s.clinic_id = ? and s.kind = 'cgm' and s.period = ? and s.previous = false and p.tags @> ?::text[]`,
    params: [clinicId, parameters.period, arrayLiteral(parameters.tags)],
  };
}

/**
 * Each requested category's first 100 patients by its statistic (ties on it included) among those
 * no earlier category takes, read from the category's partial index in order, which stops there.
 * The report's 100 are among them: in each category, they are its first by (statistic, name, id).
 */
function clinicalPicks(clinicId: string, parameters: TideParameters): Part {
  const order = parameters.categories;
  if (!order.length) {
    const rows = periodRows(clinicId, parameters);
    return {
      sql: `select ${PICKED_OF_S}, 0 as category, 0::float8 as sort_value ${rows.sql} and false`,
      params: rows.params,
    };
  }
  const picks = order.map((key, index) => {
    const rule = TIDE_CATEGORIES[key];
    const sortBy = `s.${column(rule.sortBy)}`;
    const untaken = order.slice(0, index).map((earlier) => ` and not coalesce((${categorySql(earlier, 's.')}), false)`);
    const rows = periodRows(clinicId, parameters);
    return {
      sql: `(select ${PICKED_OF_S}, ${index} as category, ${rule.descending ? '-' : ''}${sortBy} as sort_value ${rows.sql}
          and s.last_data >= ? and ${categorySql(key, 's.')}${untaken.join('')}
        order by ${sortBy}${rule.descending ? ' desc' : ''} fetch first ${TIDE_PATIENT_LIMIT} rows with ties)`,
      params: [...rows.params, parameters.lastDataCutoff],
    };
  });
  return { sql: picks.map((pick) => pick.sql).join(' union all '), params: picks.flatMap((pick) => pick.params) };
}

/**
 * The candidates for noData, two picks that each stop early: the first 50 by name of the patients
 * without data (no row of the period with last data: they come first), read in the order of
 * clinic_patients_full_name_order, each probing its row; and the first 50 by last data (ties
 * included) of those with stale data, read in the order of clinic_period_stats_tide_last_data.
 */
function noDataPicks(clinicId: string, parameters: TideParameters, now: Date): Part {
  const rows = periodRows(clinicId, parameters);
  const periodRow = `s.clinic_id = p.clinic_id and s.user_id = p.user_id and s.kind = 'cgm' and s.period = ? and s.previous = false`;
  return {
    sql: `(select ${PICKED_OF_S}, null::int as category, null::float8 as sort_value
         from (select * from clinic_patients p where p.clinic_id = ? and p.tags @> ?::text[] and not exists (
                 select 1 from ${CLINIC_PERIOD_STATS_TABLE} s where ${periodRow} and s.last_data is not null)
                order by lower(p.full_name), p.user_id limit ${TIDE_NO_DATA_LIMIT}) p
         left join ${CLINIC_PERIOD_STATS_TABLE} s on ${periodRow})
      union all
      (select ${PICKED_OF_S}, null::int as category, null::float8 as sort_value ${rows.sql}
          and s.last_data < ? and (s.last_data < ? or exists (
            select 1 from jsonb_array_elements(coalesce(p.data_sources, '[]'::jsonb)) source
             where source->>'providerName' = 'dexcom' and (source->>'state') is distinct from 'connected'))
        order by s.last_data fetch first ${TIDE_NO_DATA_LIMIT} rows with ties)`,
    params: [
      clinicId,
      arrayLiteral(parameters.tags),
      parameters.period,
      parameters.period,
      ...rows.params,
      new Date(now.getTime() - TIDE_NO_DATA_AGE_MS),
      parameters.lastDataCutoff,
    ],
  };
}

/**
 * The whole report in one statement:
 * - `clinical`: Tidepool runs a query per category, each limited to what is left of the shared
 *   100 and excluding patients already taken, and stops once nothing is left. That is the same
 *   as giving each patient the first category (in the requested order) it meets and keeping the
 *   first 100 rows ordered by (category, the category's sort): a patient met by an earlier
 *   category but cut by the limit can only be one whose category used up the 100, so no later
 *   category ran. Ties order by name ignoring case, then account id. Read from each category's
 *   first rows (clinicalPicks), not from every patient.
 * - `no_data`: never any CGM data, or none in the last 8 hours and either none since the cutoff
 *   or a Dexcom link that is not connected; oldest data first, none first of all; at most 50,
 *   apart from the 100 and without their exclusions (noDataPicks).
 * The patient records are then read for the (at most 150) rows picked.
 */
function reportStatement(clinicId: string, parameters: TideParameters, now: Date): Part {
  const clinical = clinicalPicks(clinicId, parameters);
  const noData = noDataPicks(clinicId, parameters, now);
  const picked = `user_id, name, data_sources, last_data, ${PICKED_STATS}, category, sort_value`;
  return {
    sql: `with clinical as (
      select * from (${clinical.sql}) c order by category, sort_value, name, user_id limit ${TIDE_PATIENT_LIMIT}
    ), no_data as (
      select * from (${noData.sql}) d order by last_data asc nulls first, name, user_id limit ?
    )
    select picked.part, picked.category, picked.data_sources, picked.last_data,
           ${TIDE_STATS.map((stat) => `picked.${column(stat)} as "${stat}"`).join(', ')}, p.*
      from (select 0 as part, ${picked} from clinical union all select 1 as part, ${picked} from no_data) picked
      join (select ${PATIENT_COLUMNS} from clinic_patients where clinic_id = ?) p on p.user_id = picked.user_id
     order by picked.part, picked.category, picked.sort_value, picked.last_data asc nulls first, picked.name,
              picked.user_id`,
    params: [...clinical.params, ...noData.params, parameters.excludeNoData ? 0 : TIDE_NO_DATA_LIMIT, clinicId],
  };
}

function toRow(row: Record<string, unknown>): TideRow {
  return {
    patient: toPatient(row),
    dataSources: (row.data_sources as PatientDataSource[] | null) ?? null,
    lastData: rowDate(row.last_data),
    stats: Object.fromEntries(
      TIDE_STATS.map((stat) => [stat, row[stat] === null || row[stat] === undefined ? null : Number(row[stat])]),
    ) as Record<TideStat, number | null>,
  };
}

/** The report's statement with its parameters, as tideRows runs it (for EXPLAIN and benchmarks). */
export function tideStatement(clinicId: string, parameters: TideParameters, now: Date = new Date()) {
  return reportStatement(clinicId, parameters, now);
}

/** The report's rows, in one statement, which may run on a streaming replica (a report tolerates a little staleness). */
export async function tideRows(
  em: EntityManager,
  clinicId: string,
  parameters: TideParameters,
  now: Date = new Date(),
): Promise<TideRows> {
  const { sql, params } = tideStatement(clinicId, parameters, now);
  const rows = await staleReadsOf(em).rows(sql, params);
  const clinical = rows.filter((row) => Number(row.part) === 0);
  const noData = parameters.excludeNoData ? null : rows.filter((row) => Number(row.part) === 1).map(toRow);
  return { categories: assign(parameters.categories, clinical), noData };
}

/**
 * The rows per category. With the 100 taken, the loop stopped after the category of the last
 * row: later categories are not in the report at all; before that, a category without patients
 * is there, empty.
 */
export function assign(order: readonly TideCategoryKey[], rows: Record<string, unknown>[]) {
  const reached = rows.length >= TIDE_PATIENT_LIMIT ? Number(rows[rows.length - 1].category) + 1 : order.length;
  const categories = order.slice(0, reached).map((category) => ({ category, rows: [] as TideRow[] }));
  for (const row of rows) categories[Number(row.category)].rows.push(toRow(row));
  return categories;
}

/** The data sources of (clinic, user) pairs' records, in one SELECT; records without any are left out. */
export function dataSourcesByKeys(
  em: EntityManager,
  pairs: readonly [string, string][],
): Promise<{ clinic_id: string; user_id: string; data_sources: PatientDataSource[] | null }[]> {
  return sqlOf(em).rows(
    `select p.clinic_id, p.user_id, p.data_sources
       from clinic_patients p join unnest(?::text[], ?::text[]) as k(clinic_id, user_id)
         on p.clinic_id = k.clinic_id and p.user_id = k.user_id`,
    [arrayLiteral(pairs.map(([clinicId]) => clinicId)), arrayLiteral(pairs.map(([, userId]) => userId))],
  );
}

/** A user's data sources as last reported (null: none reported). */
export async function latestDataSources(em: EntityManager, userId: string): Promise<PatientDataSource[] | null> {
  const [row] = await sqlOf(em).rows<{ data_sources: PatientDataSource[] }>(
    'select data_sources from clinic_patients where user_id = ? and data_sources is not null order by updated_time desc limit 1',
    [userId],
  );
  return row?.data_sources ?? null;
}

/** Replaces a user's data sources on its record in every clinic: how many records it has. */
export function setDataSources(
  em: EntityManager,
  userId: string,
  sources: readonly PatientDataSource[],
): Promise<number> {
  return sqlOf(em).run('update clinic_patients set data_sources = ?::jsonb, updated_time = ? where user_id = ?', [
    JSON.stringify(sources),
    new Date(),
    userId,
  ]);
}
