import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../../kernel/errors';
import { DEFAULT_CATEGORIES } from './categories';
import { parseDataSources } from './data-sources';
import { parseTags, parseTideRequest, type TideRequest } from './parameters';

const TAG = 'a'.repeat(24);
const valid: TideRequest = { period: '7d', tags: [TAG], lastDataCutoff: '2026-11-20T00:00:00Z' };

function refusal(request: Partial<TideRequest>): { code: string; field: unknown } {
  try {
    parseTideRequest({ ...valid, ...request });
  } catch (error) {
    if (error instanceof AppError) return { code: error.code, field: error.details.field };
    throw error;
  }
  throw new Error('not refused');
}

describe('TIDE parameters', () => {
  it('asks for tags in the words of GraphQL, which calls the service, not of a query string', () => {
    expect(() => parseTideRequest({ ...valid, tags: ['nope'], tagsField: 'tagIds' })).toThrow(
      'tagIds must hold at least one patient tag id',
    );
    expect(() => parseTags([])).toThrow('tags is required: a comma-separated list of patient tag ids');
  });

  it('reports the whole clinic when GraphQL gives no tag (REST requires one, with parseTags first)', () => {
    for (const tags of [[], null, undefined]) expect(parseTideRequest({ ...valid, tags }).tags).toEqual([]);
  });

  it('reads a valid request, defaults included', () => {
    expect(parseTideRequest(valid)).toEqual({
      period: '7d',
      tags: [TAG],
      lastDataCutoff: new Date('2026-11-20T00:00:00Z'),
      categories: [...DEFAULT_CATEGORIES],
      excludeNoData: false,
    });
  });

  it('refuses a missing or malformed period, tags or cutoff, naming the parameter', () => {
    expect(refusal({ period: undefined })).toEqual({ code: 'INVALID', field: 'period' });
    expect(refusal({ period: '2d' })).toEqual({ code: 'INVALID', field: 'period' });
    expect(refusal({ period: '7d ' })).toEqual({ code: 'INVALID', field: 'period' });
    expect(refusal({ tags: ['nope', 'A'.repeat(24)] })).toEqual({ code: 'INVALID', field: 'tags' });
    expect(refusal({ lastDataCutoff: undefined })).toEqual({ code: 'INVALID', field: 'lastDataCutoff' });
    expect(refusal({ lastDataCutoff: '2026-11-20' })).toEqual({ code: 'INVALID', field: 'lastDataCutoff' });
    expect(refusal({ lastDataCutoff: '2026-02-30T00:00:00Z' })).toEqual({ code: 'INVALID', field: 'lastDataCutoff' });
    expect(refusal({ lastDataCutoff: '0001-01-01T00:00:00Z' })).toEqual({ code: 'INVALID', field: 'lastDataCutoff' });
  });

  it('drops tag ids it cannot read and repeats, as Tidepool', () => {
    expect(parseTideRequest({ ...valid, tags: ['x', TAG, TAG, 'b'.repeat(24)] }).tags).toEqual([TAG, 'b'.repeat(24)]);
  });

  it('keeps known categories in the order given, ignoring unknown and repeated names', () => {
    const categories = ['meetingTargets', 'nope', 'timeInTargetPercent', 'meetingTargets'];
    expect(parseTideRequest({ ...valid, categories }).categories).toEqual(['meetingTargets', 'timeInTargetPercent']);
    expect(parseTideRequest({ ...valid, categories: ['nope'] }).categories).toEqual([]);
    expect(parseTideRequest({ ...valid, categories: null }).categories).toEqual([...DEFAULT_CATEGORIES]);
  });
});

describe('data sources', () => {
  it('keeps the known fields, times as UTC', () => {
    expect(
      parseDataSources([
        {
          providerName: 'dexcom',
          state: 'disconnected',
          dataSourceId: 'c'.repeat(24),
          modifiedTime: '2026-11-20T01:00:00+01:00',
          other: 1,
        },
      ]),
    ).toEqual([
      {
        providerName: 'dexcom',
        state: 'disconnected',
        dataSourceId: 'c'.repeat(24),
        modifiedTime: '2026-11-20T00:00:00.000Z',
      },
    ]);
  });

  it('refuses a wrong body naming the field', () => {
    const field = (body: unknown) => {
      try {
        parseDataSources(body);
      } catch (error) {
        return (error as AppError).details.field;
      }
    };
    expect(field({})).toBe('body');
    expect(field([{ providerName: 'dexcom', state: 'gone' }])).toBe('[0].state');
    expect(field([{ providerName: '', state: 'connected' }])).toBe('[0].providerName');
    expect(field([{ providerName: 'x', state: 'connected', expirationTime: 'soon' }])).toBe('[0].expirationTime');
  });
});
