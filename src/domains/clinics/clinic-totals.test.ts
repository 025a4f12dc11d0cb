import { beforeAll, describe, expect, it } from '@jest/globals';
import { insertClinicRow } from '../../../test/support/clinic-rows';
import { useTestOrm } from '../../../test/support/test-orm';
import { AccessTrail } from '../../kernel/access-trail';
import { LoaderRegistry, type Scope } from '../../kernel/scope';
import { ClinicTotals, filtersStatisticsOnly } from './clinic-totals';
import type { PatientFilter } from './patient-list';

/**
 * Which reads of a clinic's count of patients come from memory. Notices are held back here, so
 * a count that follows a row written in SQL shows whether it was read from the table.
 */
const tested = useTestOrm();
const CLINIC = 'b8b8b8b8b8b8b8b8b8b8b8b8';
const notices = { listening: true, on: () => undefined, onConnect: () => undefined };

beforeAll(async () => {
  await insertClinicRow(tested.database, { id: CLINIC, name: 'Totalled Clinic', shareCode: 'TOTL-CLIN-0001' });
});

const scopeOf = (em = tested.orm.em.fork()) =>
  ({
    principal: { userId: null, isServer: true, realm: 'dev1', clientId: 'test', scopes: [] },
    em,
    loaders: new LoaderRegistry(),
    accessTrail: new AccessTrail(null),
  }) as unknown as Scope;

let added = 0;
async function addPatientInSql(): Promise<void> {
  added += 1;
  await tested.database.query(
    `insert into clinic_patients (clinic_id, user_id, full_name, tags, permissions, reviews, created_time, updated_time)
     values ($1, $2, 'Totalled', '{}', '{view}', '[]', now(), now())`,
    [CLINIC, `total${added}`],
  );
}

describe("a clinic's count of patients", () => {
  it('is kept once read, read again while this instance changes it, and always read inside a transaction', async () => {
    const totals = new ClinicTotals(notices);
    expect(await totals.patients(scopeOf(), CLINIC)).toBe(0);
    await addPatientInSql();
    // No notice came: the kept count is answered.
    expect(await totals.patients(scopeOf(), CLINIC)).toBe(0);
    await tested.orm.em.fork().transactional(async (tx) => {
      expect(await totals.patients(scopeOf(tx), CLINIC)).toBe(1);
    });
    totals.changing(CLINIC);
    await addPatientInSql();
    expect(await totals.patients(scopeOf(), CLINIC)).toBe(2);
  });
});

/** CGM time very low above 1% in the 14 days: what a clinician's dashboard filters on. */
const VERY_LOW: PatientFilter = { summary: { cgm: { statistics: { timeInVeryLowPercent: { gt: 0.01 } } } } };

/** A patient's 14-day CGM statistics (current and previous) written in SQL, with time very low `veryLow`. */
async function writeStatsInSql(userId: string, veryLow: number): Promise<void> {
  await tested.database.query(
    `insert into glucose_period_stats (user_id, kind, period, previous, last_data, time_in_very_low_percent, glycemia_risk_zone)
     select $1, 'cgm', '14d', previous, now(), $2, 'A' from unnest(array[false, true]) as previous`,
    [userId, veryLow],
  );
}

describe("a clinic's count of patients under a summary filter", () => {
  it('is kept once read, read again while this instance changes the clinic, and always read inside a transaction', async () => {
    const totals = new ClinicTotals(notices);
    const before = await totals.matching(scopeOf(), CLINIC, VERY_LOW);
    await addPatientInSql();
    await writeStatsInSql(`total${added}`, 0.05);
    // No notice came: the kept count is answered, and the clinic's total is kept apart from it.
    expect(await totals.matching(scopeOf(), CLINIC, VERY_LOW)).toBe(before);
    await tested.orm.em.fork().transactional(async (tx) => {
      expect(await totals.matching(scopeOf(tx), CLINIC, VERY_LOW)).toBe(before + 1);
    });
    const otherFilter: PatientFilter = { summary: { cgm: { statistics: { timeInVeryLowPercent: { gt: 0.04 } } } } };
    expect(await totals.matching(scopeOf(), CLINIC, otherFilter)).toBe(before + 1);
    totals.changing(CLINIC);
    expect(await totals.matching(scopeOf(), CLINIC, VERY_LOW)).toBe(before + 1);
  });

  it('is kept only for filters on the summaries alone, whose count the copy of the statistics decides', () => {
    expect(filtersStatisticsOnly(VERY_LOW)).toBe(true);
    expect(filtersStatisticsOnly({ ...VERY_LOW, tags: ['a1b2c3d4e5f6a1b2c3d4e5f6'] })).toBe(false);
    expect(filtersStatisticsOnly({ ...VERY_LOW, search: 'Ann' })).toBe(false);
    expect(filtersStatisticsOnly({ ...VERY_LOW, lastReviewed: new Date() })).toBe(false);
    expect(filtersStatisticsOnly({ search: 'Ann' })).toBe(false);
  });
});
