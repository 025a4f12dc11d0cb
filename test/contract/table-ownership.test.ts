import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { productionFiles, ROOT as root } from './production-files';

/**
 * Every table has one owner (docs/architecture.md, "Layers"): only the owner's folder writes SQL
 * naming it. Another domain that needs it in its own statement embeds the SQL its owner's
 * repository exports (for example `summaryJoins` of src/domains/glucose/summaries.repository.ts,
 * which the clinics' TIDE report and patient sort join).
 */

const OWNERS: Record<string, string> = {
  users: 'src/domains/users/',
  user_emails: 'src/domains/users/',
  permission_grants: 'src/domains/permissions/',
  blobs: 'src/domains/blobs/',
  device_logs: 'src/domains/device-logs/',
  datasets: 'src/domains/glucose/',
  glucose_readings: 'src/domains/glucose/',
  glucose_reading_shapes: 'src/domains/glucose/',
  glucose_buckets: 'src/domains/glucose/',
  glucose_summaries: 'src/domains/glucose/',
  glucose_period_stats: 'src/domains/glucose/',
  clinics: 'src/domains/clinics/',
  clinicians: 'src/domains/clinics/',
  clinician_invites: 'src/domains/clinics/',
  clinic_patients: 'src/domains/clinics/',
  clinic_patient_period_stats: 'src/domains/clinics/',
  patient_invites: 'src/domains/clinics/',
  patient_tags: 'src/domains/clinics/',
  access_log_hours: 'src/domains/access-log/',
  access_log_records: 'src/domains/access-log/',
  confirmations: 'src/domains/confirmations/',
  login_failures: 'src/auth/',
  oidc_records: 'src/auth/',
  realm_keys: 'src/auth/',
  revoked_sessions: 'src/auth/',
  identity_links: 'src/auth/',
  outbound_mails: 'src/infra/mail/',
  pending_objects: 'src/infra/content/',
  rate_buckets: 'src/infra/rate-limits/',
};
/** Tables a later migration dropped. */
const RETIRED = ['access_log', 'access_log_entries'];

/** A table named where a statement reads or writes it. */
const TABLE_IN_SQL = /\b(?:from|join|into|update)\s+"?([a-z_]+)"?/gi;
const COMMENTS = /\/\*[\s\S]*?\*\/|\/\/[^\n]*/g;

/** `file: table` for each table `source` names in SQL that `file`'s folder does not own. */
function foreignTables(file: string, source: string): string[] {
  return [...source.replace(COMMENTS, '').matchAll(TABLE_IN_SQL)]
    .map(([, table]) => table!)
    .filter((table) => Object.hasOwn(OWNERS, table) && !file.startsWith(OWNERS[table]!))
    .map((table) => `${file}: ${table}`);
}

describe('table ownership', () => {
  it('recognises a statement on another folder’s table, and not its own or prose', () => {
    expect(foreignTables('src/domains/clinics/x.ts', '`select * from glucose_summaries where user_id = ?`')).toEqual([
      'src/domains/clinics/x.ts: glucose_summaries',
    ]);
    expect(foreignTables('src/domains/clinics/x.ts', 'sql.run(\'update "clinics" set name = ?\')')).toEqual([]);
    expect(foreignTables('src/domains/clinics/x.ts', '/** Copied from glucose_period_stats by triggers. */')).toEqual(
      [],
    );
  });

  it('gives every table the migrations create an owner', () => {
    const created = fs
      .readdirSync(path.join(root, 'migrations'))
      .flatMap((file) => [
        ...fs.readFileSync(path.join(root, 'migrations', file), 'utf8').matchAll(/create table "([a-z_]+)"/g),
      ])
      .map(([, table]) => table!);
    expect(created.filter((table) => !Object.hasOwn(OWNERS, table) && !RETIRED.includes(table))).toEqual([]);
  });

  it('keeps SQL on each table in its owner’s folder', () => {
    const files = productionFiles('src');
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((file) => foreignTables(file, fs.readFileSync(path.join(root, file), 'utf8')))).toEqual([]);
  });
});
