import { beforeAll, describe, expect, it } from '@jest/globals';
import { insertClinicRow } from '../../../test/support/clinic-rows';
import { useTestOrm } from '../../../test/support/test-orm';
import { AccessTrail } from '../../kernel/access-trail';
import { LoaderRegistry, type Scope } from '../../kernel/scope';
import { ClinicTotals } from './clinic-totals';

/**
 * Which reads of a clinic's count of patients come from memory. Notices are held back here, so
 * a count that follows a row written in SQL shows whether it was read from the table.
 */
const tested = useTestOrm();
const CLINIC = 'b8b8b8b8b8b8b8b8b8b8b8b8';
const notices = { listening: true, on: () => undefined, onConnect: () => undefined };

beforeAll(async () => {
  await insertClinicRow(tested.database, { id: CLINIC, name: 'Totalled Clinic', shareCode: 'TOTL-CLIN-0001' });
});

const scopeOf = (em = tested.orm.em.fork()) =>
  ({
    principal: { userId: null, isServer: true, realm: 'dev1', clientId: 'test', scopes: [] },
    em,
    loaders: new LoaderRegistry(),
    accessTrail: new AccessTrail(null),
  }) as unknown as Scope;

let added = 0;
async function addPatientInSql(): Promise<void> {
  added += 1;
  await tested.database.query(
    `insert into clinic_patients (clinic_id, user_id, full_name, tags, permissions, reviews, created_time, updated_time)
     values ($1, $2, 'Totalled', '{}', '{view}', '[]', now(), now())`,
    [CLINIC, `total${added}`],
  );
}

describe("a clinic's count of patients", () => {
  it('is kept once read, read again while this instance changes it, and always read inside a transaction', async () => {
    const totals = new ClinicTotals(notices);
    expect(await totals.patients(scopeOf(), CLINIC)).toBe(0);
    await addPatientInSql();
    // No notice came: the kept count is answered.
    expect(await totals.patients(scopeOf(), CLINIC)).toBe(0);
    await tested.orm.em.fork().transactional(async (tx) => {
      expect(await totals.patients(scopeOf(tx), CLINIC)).toBe(1);
    });
    totals.changing(CLINIC);
    await addPatientInSql();
    expect(await totals.patients(scopeOf(), CLINIC)).toBe(2);
  });
});
