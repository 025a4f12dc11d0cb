import { describe, expect, it } from '@jest/globals';
import {
  checkSummaryFilter,
  checkSummarySort,
  isSummarySortValue,
  parseComparison,
  parseSummaryParameters,
  summarySql,
} from './patient-filters';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return { message: (error as Error).message, field: (error as { details?: { field?: string } }).details?.field };
  }
  throw new Error('expected a refusal');
};

describe('summary filter values', () => {
  it('reads Tidepool’s operators with decimal numbers for shares and integers for counts', () => {
    expect(parseComparison('cgm.timeInVeryLowPercent', 'timeInVeryLowPercent', '>0.04')).toEqual({ gt: 0.04 });
    expect(parseComparison('p', 'timeInVeryLowPercent', '>=.5')).toEqual({ gte: 0.5 });
    expect(parseComparison('p', 'timeInTargetPercentDelta', '<-0.15')).toEqual({ lt: -0.15 });
    expect(parseComparison('p', 'averageGlucoseMmol', '<=10')).toEqual({ lte: 10 });
    expect(parseComparison('p', 'timeCGMUseMinutes', '>=1440')).toEqual({ gte: 1440 });
    // A `+` in a query string arrives as a space.
    expect(parseComparison('p', 'averageGlucoseMmol', '> 5.5')).toEqual({ gt: 5.5 });
  });

  it('refuses malformed values and the wrong grammar for the statistic, naming the parameter', () => {
    for (const [statistic, text] of [
      ['timeInVeryLowPercent', '0.04'],
      ['timeInVeryLowPercent', '=0.04'],
      ['timeInVeryLowPercent', '>'],
      ['timeInVeryLowPercent', '>1e3'],
      ['timeInVeryLowPercent', '>0.04x'],
      ['timeInVeryLowPercent', '>>0.04'],
      ['timeCGMUseMinutes', '>1.5'],
      ['timeCGMUseMinutes', '>99999999999'],
    ] as const)
      expect(refusal(() => parseComparison(`cgm.${statistic}`, statistic, text)).field).toBe(`cgm.${statistic}`);
  });
});

describe('summary parameters', () => {
  it('builds one filter of the period from cgm. and bgm. parameters, and the sort source', () => {
    const parsed = parseSummaryParameters({
      'cgm.timeInVeryLowPercent': '>0.01',
      'cgm.timeCGMUseMinutes': '>=1440',
      'cgm.lastDataFrom': '2026-11-01T00:00:00Z',
      'bgm.averageGlucoseMmol': '<7',
      period: '7d',
      offsetPeriods: 'true',
      sortType: 'bgm',
    });
    expect(parsed.filter).toEqual({
      period: '7d',
      previous: true,
      cgm: {
        statistics: { timeInVeryLowPercent: { gt: 0.01 }, timeCGMUseMinutes: { gte: 1440 } },
        lastDataFrom: new Date('2026-11-01T00:00:00Z'),
      },
      bgm: { statistics: { averageGlucoseMmol: { lt: 7 } } },
    });
    expect(parsed.sortSource).toEqual({ kind: 'bgm', period: '7d', previous: true });
    expect(parseSummaryParameters({})).toEqual({ filter: null, sortSource: null });
    expect(parseSummaryParameters({ 'cgm.timeInLowPercent': '' })).toEqual({ filter: null, sortSource: null });
  });

  it('refuses unknown statistics, statistics of the other kind and bad period, type or flag', () => {
    expect(refusal(() => parseSummaryParameters({ 'cgm.nothing': '>1' })).field).toBe('cgm.nothing');
    expect(refusal(() => parseSummaryParameters({ 'bgm.timeCGMUsePercent': '>0.5' })).field).toBe(
      'bgm.timeCGMUsePercent',
    );
    expect(refusal(() => parseSummaryParameters({ 'cgm.lastDataTo': 'yesterday' })).field).toBe('cgm.lastDataTo');
    expect(refusal(() => parseSummaryParameters({ period: '5d' })).field).toBe('period');
    expect(refusal(() => parseSummaryParameters({ sortType: 'pump' })).field).toBe('sortType');
    expect(refusal(() => parseSummaryParameters({ offsetPeriods: 'yes' })).field).toBe('offsetPeriods');
  });
});

describe('summary sorts', () => {
  it('needs the summary type for a statistic, and a statistic of that type', () => {
    expect(checkSummarySort('timeInVeryLowPercent', { kind: 'cgm' })).toEqual({
      kind: 'cgm',
      period: '14d',
      previous: false,
    });
    expect(refusal(() => checkSummarySort('timeInVeryLowPercent', null, 'sort')).field).toBe('sort');
    expect(refusal(() => checkSummarySort('timeCGMUsePercent', { kind: 'bgm' }, 'sort')).field).toBe('sort');
    expect(checkSummarySort('lastData', { kind: 'bgm', period: '1d', previous: true }).previous).toBe(true);
  });

  it('accepts only cursor values PostgreSQL prints for the sort type', () => {
    expect(isSummarySortValue('float8', '0.0416666666666667')).toBe(true);
    expect(isSummarySortValue('float8', '-Infinity')).toBe(true);
    expect(isSummarySortValue('float8', '1e-05')).toBe(true);
    expect(isSummarySortValue('float8', "0'; drop")).toBe(false);
    expect(isSummarySortValue('timestamptz', '2026-11-20 23:55:00+00')).toBe(true);
    expect(isSummarySortValue('timestamptz', '-infinity')).toBe(true);
    expect(isSummarySortValue('timestamptz', 'soon')).toBe(false);
  });
});

describe('summary SQL', () => {
  it('reads each period once, from the clinic’s copy of the statistics, bounds as parameters', () => {
    const filter = checkSummaryFilter({
      cgm: { statistics: { timeInVeryLowPercent: { gt: 0.01, lte: 0.5 }, timeInTargetPercentDelta: { lt: -0.15 } } },
    });
    const sql = summarySql(filter, {
      field: 'timeInTargetPercent',
      source: { kind: 'cgm', period: '14d', previous: false },
    });
    expect(sql.joins).toEqual([
      'join clinic_patient_period_stats s0 on s0.clinic_id = p.clinic_id and s0.user_id = p.user_id' +
        " and s0.kind = 'cgm' and s0.period = '14d' and not s0.previous",
    ]);
    expect(sql.conditions).toEqual([
      's0.time_in_very_low_percent > ?',
      's0.time_in_very_low_percent <= ?',
      's0.time_in_target_percent_delta < ?',
    ]);
    expect(sql.params).toEqual([0.01, 0.5, -0.15]);
    expect(sql.sort).toEqual({
      expression: "coalesce(s0.time_in_target_percent, '-Infinity'::float8)",
      type: 'float8',
    });
  });

  it('sorts by the summary’s own dates from the summary row, not a period', () => {
    const sql = summarySql(null, {
      field: 'outdatedSince',
      source: checkSummarySort('outdatedSince', { kind: 'bgm' }),
    });
    expect(sql.joins).toEqual([
      "left join lateral (select first_data, outdated_since from glucose_summaries g where g.user_id = p.user_id and g.kind = 'bgm' offset 0) d on true",
    ]);
    expect(sql.sort).toEqual({
      expression: "coalesce(d.outdated_since, '-infinity'::timestamptz)",
      type: 'timestamptz',
    });
  });

  it('left-joins a sort on a period no filter reads', () => {
    const sql = summarySql(checkSummaryFilter({ period: '7d', previous: true, bgm: { lastDataTo: new Date(0) } }), {
      field: 'lastData',
      source: { kind: 'cgm', period: '7d', previous: true },
    });
    expect(sql.joins[0]).toMatch(
      /^join clinic_patient_period_stats s0 on .* s0.kind = 'bgm' and s0.period = '7d' and s0.previous$/,
    );
    expect(sql.joins[1]).toMatch(/^left join clinic_patient_period_stats s1 on .* s1.kind = 'cgm' .* and s1.previous$/);
    expect(sql.conditions).toEqual(['s0.last_data < ?']);
    expect(sql.sort?.expression).toBe("coalesce(s1.last_data, '-infinity'::timestamptz)");
  });

  it('refuses statistics the kind has not and fractions where counts are asked', () => {
    expect(refusal(() => checkSummaryFilter({ bgm: { statistics: { hoursWithData: { gt: 1 } } } })).field).toBe(
      'filter.bgm.hoursWithData',
    );
    expect(refusal(() => checkSummaryFilter({ cgm: { statistics: { totalRecords: { gt: 1.5 } } } })).field).toBe(
      'filter.cgm.totalRecords',
    );
  });
});

describe('fraction bounds', () => {
  it('refuses a fraction bound outside 0 to 1, saying why and naming the bound', () => {
    const refused = refusal(() => checkSummaryFilter({ cgm: { statistics: { timeInTargetPercent: { gt: 4 } } } }));
    expect(refused.message).toBe('filter.cgm.timeInTargetPercent.gt is a fraction from 0 to 1; 4% is 0.04');
    expect(refused.field).toBe('filter.cgm.timeInTargetPercent.gt');
    expect(refusal(() => checkSummaryFilter({ cgm: { statistics: { timeCGMUsePercent: { lt: -0.1 } } } })).field).toBe(
      'filter.cgm.timeCGMUsePercent.lt',
    );
  });

  it('takes changes of fractions from -1 to 1, and the ends of the range', () => {
    const filter = checkSummaryFilter({
      cgm: { statistics: { timeInTargetPercentDelta: { gte: -1, lt: -0.15 }, timeInVeryLowPercent: { lte: 1 } } },
    });
    expect(filter.cgm?.statistics).toEqual({
      timeInTargetPercentDelta: { gte: -1, lt: -0.15 },
      timeInVeryLowPercent: { lte: 1 },
    });
    expect(
      refusal(() => checkSummaryFilter({ bgm: { statistics: { timeInLowPercentDelta: { gt: -20 } } } })).message,
    ).toBe('filter.bgm.timeInLowPercentDelta.gt is a fraction from -1 to 1; -20% is -0.2');
  });

  it('reads Tidepool’s out-of-range REST bounds as in-range bounds that match the same patients', () => {
    expect(parseComparison('p', 'timeInTargetPercent', '>4')).toEqual({ gt: 1 });
    expect(parseComparison('p', 'timeInTargetPercent', '<=4')).toEqual({ lte: 1 });
    expect(parseComparison('p', 'timeInTargetPercent', '<-2')).toEqual({ lt: 0 });
    expect(parseComparison('p', 'timeInTargetPercentDelta', '>=-2')).toEqual({ gte: -1 });
    expect(parseComparison('p', 'timeInTargetPercent', '>0.5')).toEqual({ gt: 0.5 });
  });
});

describe('glucose bounds in units', () => {
  it('converts mg/dL bounds to the stored mmol/L, unrounded; averageGlucoseMmol stays in mmol/L', () => {
    const filter = checkSummaryFilter({
      units: 'MG_DL',
      cgm: {
        statistics: { averageGlucose: { gt: 180 }, standardDeviation: { lt: 54 }, min: { gte: 70 } },
      },
      bgm: { statistics: { averageGlucoseMmol: { lt: 10 } } },
    });
    expect(filter.cgm?.statistics).toEqual({
      averageGlucoseMmol: { gt: 180 / 18.01559 },
      standardDeviation: { lt: 54 / 18.01559 },
      min: { gte: 70 / 18.01559 },
    });
    expect(filter.bgm?.statistics).toEqual({ averageGlucoseMmol: { lt: 10 } });
  });

  it('keeps mmol/L bounds as given and refuses the mean in both names at once', () => {
    const filter = checkSummaryFilter({ units: 'MMOL_L', cgm: { statistics: { averageGlucose: { gt: 10 } } } });
    expect(filter.cgm?.statistics).toEqual({ averageGlucoseMmol: { gt: 10 } });
    const both = { averageGlucoseMmol: { gt: 10 }, averageGlucose: { gt: 180 } };
    expect(refusal(() => checkSummaryFilter({ units: 'MG_DL', cgm: { statistics: both } })).field).toBe(
      'filter.cgm.averageGlucose',
    );
  });
});

describe('sort wording', () => {
  it('names the summary a sort needs as the transport calls it', () => {
    expect(refusal(() => checkSummarySort('timeInVeryLowPercent', null)).message).toBe(
      'orderBy: sorting by timeInVeryLowPercent needs orderBy.summary (CGM or BGM), the summary to sort by',
    );
    expect(
      refusal(() => checkSummarySort('timeInVeryLowPercent', null, 'sort', 'sortType (cgm or bgm)')).message,
    ).toMatch(/needs sortType \(cgm or bgm\)/);
  });
});
