import { Migration20261125020000_clinic_patient_period_stats } from './Migration20261125020000_clinic_patient_period_stats';
import { Migration20261124230000_access_log } from './Migration20261124230000_access_log';
import { Migration20261125080000_access_log_records } from './Migration20261125080000_access_log_records';
import { Migration20261125120000_access_log_hours } from './Migration20261125120000_access_log_hours';
import { Migration20261124210000_tide_indexes } from './Migration20261124210000_tide_indexes';
import { Migration20261124200000_glucose_period_stats } from './Migration20261124200000_glucose_period_stats';
import { Migration20261124190000_glucose_summaries } from './Migration20261124190000_glucose_summaries';
import { Migration20261124183000_clinic_patient_indexes } from './Migration20261124183000_clinic_patient_indexes';
import { Migration20261124180000_glucose_readings } from './Migration20261124180000_glucose_readings';
import { Migration20261124173304_clinics } from './Migration20261124173304_clinics';
import { Migration20261124140820_spec_user_roles } from './Migration20261124140820_spec_user_roles';
import { Migration20261123085644_exact_key_removals } from './Migration20261123085644_exact_key_removals';
import { Migration20261121130501_blobs_and_device_logs } from './Migration20261121130501_blobs_and_device_logs';
import { Migration20261121123250_login_protection_and_brokering } from './Migration20261121123250_login_protection_and_brokering';
import { Migration20261121115256_sharing_and_account_sessions } from './Migration20261121115256_sharing_and_account_sessions';
import { Migration20261121110548_foundation } from './Migration20261121110548_foundation';
import { Migration20261127060000_grant_origins_and_address_times } from './Migration20261127060000_grant_origins_and_address_times';
import { Migration20261127070000_glucose_summary_queue } from './Migration20261127070000_glucose_summary_queue';
import { Migration20261127080000_mail_outbox } from './Migration20261127080000_mail_outbox';
import { Migration20261127081000_confirmations } from './Migration20261127081000_confirmations';
import { Migration20261127130000_rate_buckets } from './Migration20261127130000_rate_buckets';
import { Migration20261127150000_tide_category_indexes } from './Migration20261127150000_tide_category_indexes';
import { Migration20261127170000_compact_glucose_readings } from './Migration20261127170000_compact_glucose_readings';
import { Migration20261127173000_summary_clinic_copy } from './Migration20261127173000_summary_clinic_copy';
import { Migration20261127193000_glucose_readings_user_time_key } from './Migration20261127193000_glucose_readings_user_time_key';
import { Migration20261127194500_patient_list_index } from './Migration20261127194500_patient_list_index';
import { Migration20261128070000_summary_copy_revisions } from './Migration20261128070000_summary_copy_revisions';
import { Migration20261128140000_account_change_notices } from './Migration20261128140000_account_change_notices';
import { Migration20261128150000_clinician_change_notices } from './Migration20261128150000_clinician_change_notices';
import { Migration20261128170000_clinic_patient_count_notices } from './Migration20261128170000_clinic_patient_count_notices';
import { Migration20261128190000_clinic_statistics_notices } from './Migration20261128190000_clinic_statistics_notices';
import { Migration20261128200000_grant_notices } from './Migration20261128200000_grant_notices';
import type { Migration } from '@mikro-orm/migrations';

type MigrationClass = new (...args: ConstructorParameters<typeof Migration>) => Migration;

/** Every migration in the order it runs. `npm run migration:create` appends new ones here. */
export const migrations: { name: string; class: MigrationClass }[] = [
  { name: 'Migration20261121110548_foundation', class: Migration20261121110548_foundation },
  {
    name: 'Migration20261121115256_sharing_and_account_sessions',
    class: Migration20261121115256_sharing_and_account_sessions,
  },
  {
    name: 'Migration20261121123250_login_protection_and_brokering',
    class: Migration20261121123250_login_protection_and_brokering,
  },
  { name: 'Migration20261121130501_blobs_and_device_logs', class: Migration20261121130501_blobs_and_device_logs },
  { name: 'Migration20261123085644_exact_key_removals', class: Migration20261123085644_exact_key_removals },
  { name: 'Migration20261124140820_spec_user_roles', class: Migration20261124140820_spec_user_roles },
  { name: 'Migration20261124173304_clinics', class: Migration20261124173304_clinics },
  { name: 'Migration20261124180000_glucose_readings', class: Migration20261124180000_glucose_readings },
  { name: 'Migration20261124183000_clinic_patient_indexes', class: Migration20261124183000_clinic_patient_indexes },
  { name: 'Migration20261124190000_glucose_summaries', class: Migration20261124190000_glucose_summaries },
  { name: 'Migration20261124200000_glucose_period_stats', class: Migration20261124200000_glucose_period_stats },
  { name: 'Migration20261124210000_tide_indexes', class: Migration20261124210000_tide_indexes },
  { name: 'Migration20261124230000_access_log', class: Migration20261124230000_access_log },
  {
    name: 'Migration20261125020000_clinic_patient_period_stats',
    class: Migration20261125020000_clinic_patient_period_stats,
  },
  { name: 'Migration20261125080000_access_log_records', class: Migration20261125080000_access_log_records },
  { name: 'Migration20261125120000_access_log_hours', class: Migration20261125120000_access_log_hours },
  {
    name: 'Migration20261127060000_grant_origins_and_address_times',
    class: Migration20261127060000_grant_origins_and_address_times,
  },
  { name: 'Migration20261127070000_glucose_summary_queue', class: Migration20261127070000_glucose_summary_queue },
  { name: 'Migration20261127080000_mail_outbox', class: Migration20261127080000_mail_outbox },
  { name: 'Migration20261127081000_confirmations', class: Migration20261127081000_confirmations },
  { name: 'Migration20261127130000_rate_buckets', class: Migration20261127130000_rate_buckets },
  {
    name: 'Migration20261127150000_tide_category_indexes',
    class: Migration20261127150000_tide_category_indexes,
  },
  {
    name: 'Migration20261127170000_compact_glucose_readings',
    class: Migration20261127170000_compact_glucose_readings,
  },
  {
    name: 'Migration20261127173000_summary_clinic_copy',
    class: Migration20261127173000_summary_clinic_copy,
  },
  {
    name: 'Migration20261127193000_glucose_readings_user_time_key',
    class: Migration20261127193000_glucose_readings_user_time_key,
  },
  { name: 'Migration20261127194500_patient_list_index', class: Migration20261127194500_patient_list_index },
  { name: 'Migration20261128070000_summary_copy_revisions', class: Migration20261128070000_summary_copy_revisions },
  { name: 'Migration20261128140000_account_change_notices', class: Migration20261128140000_account_change_notices },
  {
    name: 'Migration20261128150000_clinician_change_notices',
    class: Migration20261128150000_clinician_change_notices,
  },
  {
    name: 'Migration20261128170000_clinic_patient_count_notices',
    class: Migration20261128170000_clinic_patient_count_notices,
  },
  {
    name: 'Migration20261128190000_clinic_statistics_notices',
    class: Migration20261128190000_clinic_statistics_notices,
  },
  { name: 'Migration20261128200000_grant_notices', class: Migration20261128200000_grant_notices },
];
