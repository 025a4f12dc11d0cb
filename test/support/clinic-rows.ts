import type { TestDatabase } from './database';

/**
 * A clinic's row written straight into the database, for tests of statements that need a clinic
 * and none of the service's rules for making one; `units` as the row stores them.
 */
export async function insertClinicRow(
  database: Pick<TestDatabase, 'query'>,
  { id, name, shareCode, units = 'mg/dL' }: { id: string; name: string; shareCode: string; units?: string },
): Promise<void> {
  await database.query(
    `insert into clinics (id, name, phone_numbers, preferred_bg_units, share_code, can_migrate, tier,
                          tier_description, ehr_enabled, created_time, updated_time)
     values ($1, $2, '[]', $4, $3, false, 'tier0100', 'Free', false, now(), now())`,
    [id, name, shareCode, units],
  );
}
