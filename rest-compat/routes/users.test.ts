import { describe, expect, it } from '@jest/globals';
import { thrown } from '../../test/support/thrown';
import type { RestRequest } from '../route';
import { legacyUser, updateInput } from './users';

const request = (body: unknown) => ({ body }) as RestRequest;

describe('users on the legacy wire', () => {
  it('legacyUser: empty keys left out, emailVerified kept even when false', () => {
    expect(
      legacyUser({
        userid: '0123456789',
        username: 'a@example.org',
        emails: ['a@example.org'],
        roles: [],
        emailVerified: false,
        termsAccepted: null,
        createdTime: '2024-03-01T10:00:00.000Z',
        createdUserId: null,
        modifiedTime: null,
        modifiedUserId: null,
        passwordExists: true,
      }),
    ).toEqual({
      userid: '0123456789',
      username: 'a@example.org',
      emails: ['a@example.org'],
      emailVerified: false,
      createdTime: '2024-03-01T10:00:00.000Z',
      passwordExists: true,
    });
  });

  it('updateInput takes the wrapped form, dropping echoed read-only fields', () => {
    expect(updateInput(request({ updates: { username: 'b@example.org', userid: 'x', passwordExists: true } }))).toEqual(
      { username: 'b@example.org' },
    );
  });

  it('updateInput takes the flat form of the specification, which requires emailVerified', () => {
    expect(updateInput(request({ emailVerified: true, createdTime: 'x' }))).toEqual({ emailVerified: true });
    expect(thrown(() => updateInput(request({ username: 'b@example.org' })))).toMatchObject({
      code: 'INVALID',
      message: 'emailVerified is required in an update body (or wrap the changes as {"updates": {...}})',
      details: { field: 'emailVerified' },
    });
    expect(thrown(() => updateInput(request({ emailVerified: 'yes' })))).toMatchObject({
      message: '"emailVerified" must be a boolean',
    });
  });

  it('updateInput refuses bodies and fields of the wrong shape, naming them', () => {
    expect(thrown(() => updateInput(request(undefined)))).toMatchObject({ code: 'INVALID' });
    expect(thrown(() => updateInput(request({ updates: [] })))).toMatchObject({
      message: 'updates must be a JSON object',
    });
    expect(thrown(() => updateInput(request({ updates: { emails: 'a@example.org' } })))).toMatchObject({
      message: '"emails" must be a list of strings',
      details: { field: 'emails' },
    });
  });
});
