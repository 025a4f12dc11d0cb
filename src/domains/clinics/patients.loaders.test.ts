import { beforeAll, describe, expect, it } from '@jest/globals';
import { insertClinicRow } from '../../../test/support/clinic-rows';
import { useTestOrm } from '../../../test/support/test-orm';
import { requestScope } from '../../infra/logger';
import { AccessTrail } from '../../kernel/access-trail';
import { LoaderRegistry, type Scope } from '../../kernel/scope';
import type { PatientFilter, PatientOrder } from './patient-list';
import { countPatients, patientPage } from './patients.loaders';

/**
 * A page that answers its counts (the REST list's `meta`) reads them in statements of their own,
 * started with the page's: they pass over every patient of the clinic while the page reads a few,
 * so neither waits for the other.
 */
const tested = useTestOrm();
const CLINIC = 'a7a7a7a7a7a7a7a7a7a7a7a7';
const BY_ID: PatientOrder = { field: 'userId', descending: false };
const NAMED_ALPHA: PatientFilter = { search: 'alpha' };

beforeAll(async () => {
  await insertClinicRow(tested.database, { id: CLINIC, name: 'Counted Clinic', shareCode: 'CNTD-CLIN-0001' });
  await tested.database.query(
    `insert into clinic_patients (clinic_id, user_id, full_name, tags, permissions, reviews, created_time, updated_time)
     select $1, 'counted' || n, case when n % 3 = 0 then 'Alpha ' else 'Beta ' end || n, '{}', '{view}', '[]', now(), now()
       from generate_series(1, 30) n`,
    [CLINIC],
  );
  // Connects the pool's connections, whose first use checks the database with a statement of its own.
  await Promise.all([1, 2].map(() => tested.orm.em.fork().getConnection().execute('select 1')));
});

const scopeOf = () =>
  ({
    principal: { userId: null, isServer: true, realm: 'dev1', clientId: 'test', scopes: [] },
    em: tested.orm.em.fork(),
    loaders: new LoaderRegistry(),
    accessTrail: new AccessTrail(null),
  }) as unknown as Scope;

/** Runs `read` as a request, answering what it returned and the statements run until then. */
async function counted<T>(read: () => Promise<T>): Promise<{ value: T; statements: number }> {
  const request = { requestId: 'counted', sqlStatements: 0 };
  const value = await requestScope.run(request, read);
  return { value, statements: request.sqlStatements };
}

describe('a page of the patient list', () => {
  it('that answers its counts has them read by the time it comes, each in a statement of its own', async () => {
    const scope = scopeOf();
    const page = await counted(() =>
      patientPage(scope, CLINIC, NAMED_ALPHA, BY_ID, { first: 4, after: null }, { counts: true }),
    );
    expect(page.value.map((row) => row.fullName)).toEqual(['Alpha 12', 'Alpha 15', 'Alpha 18', 'Alpha 21', 'Alpha 24']);
    // The page, the list's count and the clinic's, all begun before the page's answer came.
    expect(page.statements).toBe(3);
    const counts = await counted(() =>
      Promise.all([countPatients(scope, CLINIC, NAMED_ALPHA), countPatients(scope, CLINIC)]),
    );
    expect(counts).toEqual({ value: [10, 30], statements: 0 });
  });

  it('that answers no counts reads the page alone, and a count asked later is read then', async () => {
    const scope = scopeOf();
    const page = await counted(() => patientPage(scope, CLINIC, NAMED_ALPHA, BY_ID, { first: 4, after: null }));
    expect(page.statements).toBe(1);
    expect(await counted(() => countPatients(scope, CLINIC))).toEqual({ value: 30, statements: 1 });
  });

  it('past the first counts nothing, as the first page did', async () => {
    const scope = scopeOf();
    const after: [string] = ['counted3'];
    const page = await counted(() =>
      patientPage(scope, CLINIC, NAMED_ALPHA, BY_ID, { first: 2, after }, { counts: true }),
    );
    expect(page.value.map((row) => row.userId)).toEqual(['counted30', 'counted6', 'counted9']);
    expect(page.statements).toBe(1);
  });
});
