import { fakeTransaction } from '../../../test/support/fake-sql';
import { AccessTrail } from '../../kernel/access-trail';
import { LoaderRegistry, type Scope } from '../../kernel/scope';
import { AccessPolicy, MAY_READ_DATA } from '../permissions/access-policy';
import { clinicGrants as clinicGrantsThrough } from './membership';
import { ClinicMemberships } from './clinician-memberships';

/** Not listening to the database's notices: every membership question goes to the (fake) table. */
const clinicGrants = clinicGrantsThrough(
  new ClinicMemberships({ listening: false, on: () => undefined, onConnect: () => undefined }),
);

/**
 * A scope whose database answers the clinic-grants query from `patients` (user → the
 * permissions each clinic of the caller holds) and no direct grants, counting the queries.
 */
function scopeWith(callerId: string, patients: Record<string, string[][]>, clinicianOf = 2) {
  const statements: string[] = [];
  const em = fakeTransaction((sql, params) => {
    statements.push(sql);
    if (sql.includes('from clinicians')) return clinicianOf ? [{ user_id: callerId, clinics: clinicianOf }] : [];
    if (!sql.includes('clinic_patients')) return [];
    const [, targets] = params as [string, string[]];
    return targets.flatMap((id) =>
      (patients[id] ?? []).map((permissions, clinic) => ({ user_id: id, clinic_id: `clinic${clinic}`, permissions })),
    );
  });
  const scope = {
    principal: { userId: callerId, isServer: false, realm: 'dev1', clientId: 'test', scopes: [] },
    em,
    loaders: new LoaderRegistry(),
    accessTrail: new AccessTrail(null),
  } as unknown as Scope;
  return { scope, statements };
}

describe('clinic grants', () => {
  it('give a clinician what each patient granted its clinics, for many patients in one query', async () => {
    const { scope, statements } = scopeWith('clinician', { p1: [['view']], p2: [['view'], ['upload', 'note']] });
    expect(await clinicGrants(scope, 'clinician', ['p1', 'p2', 'p3'])).toEqual([
      [{ permissions: ['view'], clinicId: 'clinic0' }],
      [
        { permissions: ['view'], clinicId: 'clinic0' },
        { permissions: ['upload', 'note'], clinicId: 'clinic1' },
      ],
      [],
    ]);
    expect(statements.filter((sql) => sql.includes('clinic_patients'))).toHaveLength(1);
  });

  it('cost a caller who is a clinician of no clinic one question of its memberships, and give it nothing', async () => {
    const { scope, statements } = scopeWith('outsider', { p1: [['view']] }, 0);
    expect(await clinicGrants(scope, 'outsider', ['p1', 'p2'])).toEqual([[], []]);
    expect(statements.filter((sql) => sql.includes('clinic_patients'))).toHaveLength(0);
    expect(statements.filter((sql) => sql.includes('from clinicians'))).toHaveLength(1);
  });

  it('count in the access policy exactly as a direct grant would', async () => {
    const { scope } = scopeWith('clinician', { viewed: [['view']], uploaded: [['upload']] });
    const policy = new AccessPolicy([clinicGrants]);
    const targets = ['viewed', 'uploaded', 'stranger'];
    expect(await policy.allowedTargets(scope, targets, MAY_READ_DATA)).toEqual(new Set(['viewed']));
    expect(await policy.allowedTargets(scope, targets, ['upload', 'custodian'])).toEqual(new Set(['uploaded']));
    expect(await policy.allowedTargets(scope, targets, 'owner-only')).toEqual(new Set());
    expect(await policy.heldBy(scope, 'clinician', 'viewed')).toEqual(['view']);
  });
});
