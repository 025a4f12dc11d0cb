import { describe, expect, it } from '@jest/globals';
import { categoryOf, DEFAULT_CATEGORIES, passes, TIDE_CATEGORIES, type TideStat } from './categories';
import { assign } from './tide.repository';

const stats = (values: Partial<Record<TideStat, number | null>>) => values;

describe('TIDE category rules', () => {
  it('tests each default threshold strictly, as Tidepool ($gt, $lt)', () => {
    const at = (key: keyof typeof TIDE_CATEGORIES, stat: TideStat, value: number) =>
      TIDE_CATEGORIES[key].conditions.every((condition) => passes(condition, stats({ [stat]: value })));
    expect(at('timeInVeryLowPercent', 'timeInVeryLowPercent', 0.01)).toBe(false);
    expect(at('timeInVeryLowPercent', 'timeInVeryLowPercent', 0.0101)).toBe(true);
    expect(at('timeInAnyLowPercent', 'timeInAnyLowPercent', 0.04)).toBe(false);
    expect(at('timeInVeryHighPercent', 'timeInVeryHighPercent', 0.05)).toBe(false);
    expect(at('timeInAnyHighPercent', 'timeInAnyHighPercent', 0.25)).toBe(false);
    expect(at('timeInAnyHighPercent', 'timeInAnyHighPercent', 0.2501)).toBe(true);
    expect(at('dropInTimeInTargetPercent', 'timeInTargetPercentDelta', -0.15)).toBe(false);
    expect(at('dropInTimeInTargetPercent', 'timeInTargetPercentDelta', -0.1501)).toBe(true);
    expect(at('timeCGMUsePercent', 'timeCGMUsePercent', 0.7)).toBe(false);
    expect(at('timeCGMUsePercent', 'timeCGMUsePercent', 0.6999)).toBe(true);
    expect(at('timeInExtremeHighPercent', 'timeInExtremeHighPercent', 0.01)).toBe(true);
  });

  it('never passes a missing statistic, except through a negated test (Mongo $not)', () => {
    expect(categoryOf(DEFAULT_CATEGORIES, {})).toBeNull();
    expect(categoryOf(DEFAULT_CATEGORIES, { timeInTargetPercent: 0.7, timeCGMUsePercent: 0.7 })).toBe('meetingTargets');
    expect(
      categoryOf(DEFAULT_CATEGORIES, {
        timeInTargetPercent: 0.9,
        timeCGMUsePercent: 0.9,
        timeInExtremeHighPercent: 0.01,
      }),
    ).toBeNull();
    expect(categoryOf(DEFAULT_CATEGORIES, { timeInTargetPercent: 0.69, timeCGMUsePercent: 0.9 })).toBeNull();
  });

  it('gives a patient the first category of the order it meets', () => {
    const patient = { timeInVeryLowPercent: 0.02, timeInAnyLowPercent: 0.05, timeCGMUsePercent: 0.5 };
    expect(categoryOf(DEFAULT_CATEGORIES, patient)).toBe('timeInVeryLowPercent');
    expect(categoryOf(['timeCGMUsePercent', 'timeInVeryLowPercent'], patient)).toBe('timeCGMUsePercent');
    expect(categoryOf(['timeInTargetPercent'], patient)).toBeNull();
  });
});

describe('the shared limit of 100 (stop rule)', () => {
  const rows = (categories: number[]) =>
    categories.map((category, index) => ({
      category,
      clinic_id: 'c',
      user_id: `u${index}`,
      full_name: 'P',
      tags: [],
      permissions: [],
      reviews: [],
      created_time: new Date(),
      updated_time: new Date(),
    }));

  it('lists every category asked, empty ones too, while fewer than 100 are taken', () => {
    const result = assign(DEFAULT_CATEGORIES, rows([0, 0, 3]));
    expect(result.map((category) => [category.category, category.rows.length])).toEqual([
      ['timeInVeryLowPercent', 2],
      ['timeInAnyLowPercent', 0],
      ['timeInVeryHighPercent', 0],
      ['timeInAnyHighPercent', 1],
      ['dropInTimeInTargetPercent', 0],
      ['timeCGMUsePercent', 0],
      ['meetingTargets', 0],
    ]);
  });

  it('stops after the category that took the 100th patient: later ones are left out', () => {
    const result = assign(DEFAULT_CATEGORIES, rows([...Array(60).fill(0), ...Array(40).fill(2)]));
    expect(result.map((category) => [category.category, category.rows.length])).toEqual([
      ['timeInVeryLowPercent', 60],
      ['timeInAnyLowPercent', 0],
      ['timeInVeryHighPercent', 40],
    ]);
  });
});
