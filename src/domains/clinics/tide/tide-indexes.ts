import { STAT_COLUMNS } from '../../glucose/period-stats';
import { TIDE_CATEGORIES, TIDE_CATEGORY_KEYS, type Condition, type TideCategoryKey } from './categories';

/**
 * The TIDE report's conditions as SQL, and the partial indexes of the clinic's copy of the
 * statistics (clinic_patient_period_stats) that let the report read only each category's first
 * patients (migrations/Migration20261127150000_tide_category_indexes.ts says why). The index
 * predicates and the report's conditions are one text: the planner uses a partial index only
 * when the statement's conditions imply its predicate.
 */

/** A condition as SQL: NULL never passes a comparison, and always passes its negation (Mongo `$not`). */
function conditionSql({ stat, operator, value, negated }: Condition, alias: string): string {
  const test = `${alias}${STAT_COLUMNS[stat]} ${operator} ${value}::float8`;
  return negated ? `not coalesce(${test}, false)` : test;
}

/** A category's conditions as SQL, on the columns of `alias` (`s.`) or, without one, of the table. */
export const categorySql = (key: TideCategoryKey, alias = '') =>
  TIDE_CATEGORIES[key].conditions.map((condition) => conditionSql(condition, alias)).join(' and ');

const snake = (name: string) => name.replace(/CGM/g, 'Cgm').replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** The name of a category's index. */
export const tideIndexName = (key: TideCategoryKey) => `clinic_period_stats_tide_${snake(key)}`;

/**
 * Per category: the CGM rows that meet it, by clinic, period, previous and the statistic it sorts
 * by; and every CGM row by last data, for noData. As entity index definitions of `table`.
 */
export function tideIndexes(table: string): { name: string; expression: string }[] {
  const categories = TIDE_CATEGORY_KEYS.map((key) => ({
    name: tideIndexName(key),
    expression:
      `create index "${tideIndexName(key)}" on "${table}" ("clinic_id", "period", "previous", ` +
      `"${STAT_COLUMNS[TIDE_CATEGORIES[key].sortBy]}") where kind = 'cgm' and ${categorySql(key)}`,
  }));
  const lastData = 'clinic_period_stats_tide_last_data';
  return [
    ...categories,
    {
      name: lastData,
      expression: `create index "${lastData}" on "${table}" ("clinic_id", "period", "previous", "last_data") where kind = 'cgm'`,
    },
  ];
}
