import { describe, expect, it } from '@jest/globals';
import { expectMatchesTidepoolModel } from '../../test/support/openapi';
import { thrown } from '../../test/support/thrown';
import { permissionNames, permissionSet } from './permissions';

describe('permission sets', () => {
  it('permissionSet: GraphQL names become Tidepool’s set of empty objects', async () => {
    const set = permissionSet(['VIEW', 'NOTE', 'UPLOAD']);
    expect(set).toEqual({ view: {}, note: {}, upload: {} });
    await expectMatchesTidepoolModel(set, 'access/models/userpermissions.v1.yaml');
    expect(permissionSet(['ROOT'])).toEqual({ root: {} });
    expect(permissionSet([])).toEqual({});
  });

  it('permissionNames: a set of empty objects becomes GraphQL names, custodial read as custodian', () => {
    expect(permissionNames({ view: {}, upload: {} })).toEqual(['VIEW', 'UPLOAD']);
    expect(permissionNames({ custodial: {} })).toEqual(['CUSTODIAN']);
    expect(permissionNames({})).toEqual([]);
  });

  it('permissionNames refuses what is not a set of empty objects, or an unknown name, naming it', () => {
    expect(thrown(() => permissionNames([]))).toMatchObject({
      code: 'INVALID',
      message: 'Permission set must be a JSON object',
    });
    for (const value of [true, null, [], { level: 1 }])
      expect(thrown(() => permissionNames({ view: value }))).toMatchObject({
        message: 'Permission "view" must have an empty object {} as its value',
        details: { field: 'view' },
      });
    expect(thrown(() => permissionNames({ admin: {} }))).toMatchObject({
      message: 'names[0] must be one of root, custodian, view, upload, note, not "admin"',
    });
  });
});
