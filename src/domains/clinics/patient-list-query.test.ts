import { describe, expect, it } from '@jest/globals';
import { parsePatientListQuery, patientListSearch, type PatientListQuery } from './patient-list-query';
import type { PatientOrder } from './patient-list';

const TAG = '65a1b2c3d4e5f60718293a4b';
const outcome = (run: () => unknown) => {
  try {
    run();
    return 'ok';
  } catch (error) {
    return (error as { details?: { field?: string } }).details?.field;
  }
};

/** A checked list read back from the query string it is written as. */
const roundTrip = (list: PatientListQuery & { order: PatientOrder }) => {
  const search = patientListSearch(list);
  const parameters = Object.fromEntries([...search].filter(([name]) => name !== 'tags'));
  return parsePatientListQuery(parameters, search.get('tags')?.split(','));
};

describe("the patient list's query string", () => {
  it("parses Tidepool's parameters into the service's filter and order", () => {
    const parsed = parsePatientListQuery(
      {
        search: 'doe',
        sort: '-timeInTargetPercent',
        sortType: 'cgm',
        period: '7d',
        'cgm.timeInVeryLowPercent': '>0.04',
      },
      [TAG],
    );
    expect(parsed).toEqual({
      filter: {
        search: 'doe',
        tags: [TAG],
        lastReviewed: null,
        summary: expect.objectContaining({
          units: 'MMOL_L',
          period: '7d',
          previous: false,
          cgm: { statistics: { timeInVeryLowPercent: { gt: 0.04 } } },
        }),
      },
      order: {
        field: 'timeInTargetPercent',
        descending: true,
        summary: { kind: 'cgm', period: '7d', previous: false },
      },
      period: '7d',
      previous: false,
    });
  });

  it('refuses a bad parameter naming it', () => {
    expect(outcome(() => parsePatientListQuery({ sort: '~x' }, undefined))).toBe('sort');
    expect(outcome(() => parsePatientListQuery({}, ['nope']))).toBe('tags');
    expect(outcome(() => parsePatientListQuery({ period: '2d' }, undefined))).toBe('period');
    expect(outcome(() => parsePatientListQuery({ 'cgm.min': 'x' }, undefined))).toBe('cgm.min');
    expect(outcome(() => parsePatientListQuery({ lastReviewed: 'yesterday' }, undefined))).toBe('lastReviewed');
  });

  it('writes a checked list so that it parses back the same', () => {
    const list = {
      filter: {
        search: 'a+b & c',
        tags: [TAG],
        lastReviewed: new Date('2026-01-02T03:04:05.000Z'),
        summary: {
          period: '30d' as const,
          previous: true,
          cgm: {
            statistics: { timeInTargetPercent: { gte: 0.5 }, averageGlucoseMmol: { lt: 0.0000001 } },
            lastDataFrom: new Date('2026-01-01T00:00:00.000Z'),
            lastDataTo: null,
          },
          bgm: { statistics: { totalRecords: { lte: 30 } }, lastDataFrom: null, lastDataTo: null },
        },
      },
      order: {
        field: 'averageDailyRecords' as const,
        descending: false,
        summary: { kind: 'bgm' as const, period: '30d' as const, previous: true },
      },
      period: '30d' as const,
      previous: true,
    };
    const parsed = roundTrip(list);
    expect(parsed.filter.search).toBe('a+b & c');
    expect(parsed.filter.tags).toEqual([TAG]);
    expect(parsed.filter.lastReviewed).toEqual(list.filter.lastReviewed);
    expect(parsed.filter.summary).toMatchObject({ period: '30d', previous: true, units: 'MMOL_L' });
    expect(parsed.filter.summary!.cgm!.statistics).toEqual(list.filter.summary.cgm.statistics);
    expect(parsed.filter.summary!.cgm!.lastDataFrom).toEqual(list.filter.summary.cgm.lastDataFrom);
    expect(parsed.filter.summary!.bgm!.statistics).toEqual(list.filter.summary.bgm.statistics);
    expect(parsed.order).toEqual(list.order);
    expect([parsed.period, parsed.previous]).toEqual(['30d', true]);
    const byName = roundTrip({
      filter: {},
      order: { field: 'fullName', descending: true },
      period: '14d',
      previous: false,
    });
    expect(byName.order).toEqual({ field: 'fullName', descending: true, summary: null });
    expect(
      roundTrip({ filter: {}, order: { field: 'userId', descending: false }, period: '1d', previous: false }).order,
    ).toBeNull();
  });

  it('refuses a list the REST query cannot say, naming what differs', () => {
    const base = {
      filter: {},
      order: { field: 'userId' as const, descending: false },
      period: '14d' as const,
      previous: false,
    };
    const twoBounds = { period: '14d' as const, cgm: { statistics: { min: { gt: 3, lt: 5 } } } };
    expect(outcome(() => patientListSearch({ ...base, filter: { summary: twoBounds } }))).toBe('filter.cgm.min');
    expect(outcome(() => patientListSearch({ ...base, order: { field: 'userId', descending: true } }))).toBe('orderBy');
    const otherPeriod = { period: '7d' as const, cgm: { statistics: { min: { gt: 3 } } } };
    expect(outcome(() => patientListSearch({ ...base, filter: { summary: otherPeriod } }))).toBe('filter.period');
    const sortPeriod = { kind: 'cgm' as const, period: '7d' as const, previous: false };
    expect(
      outcome(() => patientListSearch({ ...base, order: { field: 'min', descending: false, summary: sortPeriod } })),
    ).toBe('orderBy');
  });
});
