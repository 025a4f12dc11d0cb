import { describe, expect, it } from '@jest/globals';
import { declaredQuery } from './declared-query';

describe('declared query parameters', () => {
  const doc = {
    summary: 'A list',
    tag: 'Lists',
    parameters: [
      { name: 'limit', in: 'query', schema: { type: 'integer' } },
      { name: 'cgm.timeInVeryLowPercent', in: 'query', schema: { type: 'string' } },
      { name: 'x-tidepool-trace', in: 'header', schema: { type: 'string' } },
    ],
  } as const;

  it('passes the declared query parameters and drops the others, headers of the same name included', () => {
    const query = declaredQuery(doc)({
      limit: '5',
      'cgm.timeInVeryLowPercent': '>0.01',
      'cgm.undeclared': '>1',
      'x-tidepool-trace': 'in the query',
      _: '1700000000',
    });
    expect(query).toEqual({ limit: '5', 'cgm.timeInVeryLowPercent': '>0.01', 'cgm.undeclared': '>1' });
  });

  it('passes an undeclared member of a declared family, for the route to refuse by name', () => {
    expect(declaredQuery(doc)({ 'cgm.unknownStatistic': '>1', 'bgm.timeInVeryLowPercent': '>1' })).toEqual({
      'cgm.unknownStatistic': '>1',
    });
  });

  it('leaves a route without a description every parameter', () => {
    expect(declaredQuery(undefined)({ anything: 'goes' })).toEqual({ anything: 'goes' });
  });
});
