import { describe, expect, it } from '@jest/globals';
import { fakeTransaction } from '../../../test/support/fake-sql';
import { AccessTrail, type AccessEvent } from '../../kernel/access-trail';
import { forbidden } from '../../kernel/errors';
import { ANONYMOUS, type Principal } from '../../kernel/principal';
import { LoaderRegistry, type Scope } from '../../kernel/scope';
import { AccessPolicy } from '../permissions/access-policy';
import { mayNameAccessor } from './access-log.rules';
import { AccessLogService } from './access-log.service';

const PATIENT = '0000000001';
const CUSTODIAN = '0000000002';
const VIEWER = '0000000003';
const STRANGER = '0000000004';
const ADMIN = '0000000005';
const CLINIC = 'c'.repeat(24);

/** Who holds what on whom (sharer → grantee → permissions), as permission_grants would say. */
const GRANTS: Record<string, Record<string, string[]>> = {
  [PATIENT]: { [CUSTODIAN]: ['custodian', 'view'], [VIEWER]: ['view'] },
};

const user = (userId: string): Principal => ({ ...ANONYMOUS, userId, realm: 'dev1', clientId: 'app' });
const SERVER: Principal = { ...ANONYMOUS, isServer: true, realm: 'dev1', clientId: 'backend' };

/**
 * A scope whose database answers the grant lookups from GRANTS and every access-log read with
 * no rows (all on the primary, as in a transaction); the events its trail records are kept in `recorded`.
 */
function scopeOf(principal: Principal) {
  const recorded: AccessEvent[] = [];
  const em = fakeTransaction((sql, params) => {
    if (!sql.includes('permission_grants')) return [];
    const [grantee, sharers] = params as [string, string[]];
    return sharers
      .filter((sharer) => GRANTS[sharer]?.[grantee])
      .map((sharer) => ({ sharer_id: sharer, permissions: GRANTS[sharer]![grantee], clinic_id: null }));
  });
  const scope = {
    principal,
    em,
    loaders: new LoaderRegistry(),
    accessTrail: new AccessTrail(async (_em, _scope, events) => void recorded.push(...events)),
  } as unknown as Scope;
  return { scope, recorded };
}

const admins = new Set([ADMIN]);
const service = new AccessLogService(
  new AccessPolicy(),
  async (scope, _clinicId) => {
    if (!scope.principal.isServer && !admins.has(scope.principal.userId ?? '')) throw forbidden();
  },
  async () => new Map(),
);

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (error: { code?: string }) => error.code,
  );

describe('who reads an account’s access log', () => {
  it('the account itself, its custodians and server tokens', async () => {
    for (const reader of [user(PATIENT), user(CUSTODIAN), SERVER]) {
      expect(await codeOf(service.ofUser(scopeOf(reader).scope, PATIENT))).toBe('ok');
    }
  });

  it('not someone it shares its data with, nor a stranger, nor an anonymous caller', async () => {
    expect(await codeOf(service.ofUser(scopeOf(user(VIEWER)).scope, PATIENT))).toBe('FORBIDDEN');
    expect(await codeOf(service.ofUser(scopeOf(user(STRANGER)).scope, PATIENT))).toBe('FORBIDDEN');
    expect(await codeOf(service.ofUser(scopeOf(ANONYMOUS).scope, PATIENT))).toBe('UNAUTHENTICATED');
  });

  it('logs a reading custodian, and a refused reader, in the account’s own log', async () => {
    const custodian = scopeOf(user(CUSTODIAN));
    await service.ofUser(custodian.scope, PATIENT);
    await custodian.scope.accessTrail.flush(custodian.scope);
    expect(custodian.recorded).toEqual([expect.objectContaining({ subjectId: PATIENT, outcome: 'ALLOWED' })]);

    const stranger = scopeOf(user(STRANGER));
    await service.ofUser(stranger.scope, PATIENT).catch(() => undefined);
    await stranger.scope.accessTrail.flush(stranger.scope);
    expect(stranger.recorded).toEqual([expect.objectContaining({ subjectId: PATIENT, outcome: 'REFUSED' })]);
  });

  it('refuses a bad account id or cursor naming the argument', async () => {
    const { scope } = scopeOf(SERVER);
    await expect(service.ofUser(scope, 'nope')).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'userId' },
    });
    await expect(service.ofUser(scope, PATIENT, { after: 'nope' })).rejects.toMatchObject({
      details: { field: 'after' },
    });
  });
});

describe('who reads a clinic’s access log', () => {
  it('its admins and server tokens, nobody else', async () => {
    expect(await codeOf(service.ofClinic(scopeOf(user(ADMIN)).scope, CLINIC))).toBe('ok');
    expect(await codeOf(service.ofClinic(scopeOf(SERVER).scope, CLINIC))).toBe('ok');
    expect(await codeOf(service.ofClinic(scopeOf(user(VIEWER)).scope, CLINIC))).toBe('FORBIDDEN');
  });
});

describe('whose names a reader sees', () => {
  it('those let in, to anyone who reads the log; refused strangers to servers only', () => {
    expect(mayNameAccessor(user(PATIENT), 'ALLOWED')).toBe(true);
    expect(mayNameAccessor(user(PATIENT), 'REFUSED')).toBe(false);
    expect(mayNameAccessor(SERVER, 'REFUSED')).toBe(true);
  });
});
