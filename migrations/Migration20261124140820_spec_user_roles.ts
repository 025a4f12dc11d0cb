import { Migration } from '@mikro-orm/migrations';

export class Migration20261124140820_spec_user_roles extends Migration {

  override name = 'Migration20261124140820_spec_user_roles';

  override up(): void | Promise<void> {
    // Custodial accounts were created with Tidepool's internal roles; the specification allows
    // `clinic` alone, and the custodial relation is the custodian's `custodian` permission.
    this.addSql(`update "users" set "roles" = array_remove(array_remove("roles", 'custodial_account'), 'patient') where "roles" && array['custodial_account', 'patient']::text[];`);
  }

  override down(): void | Promise<void> {
    // Custodial accounts are those without a password that a user created (as far as the
    // records tell: one a server token created has no creator and stays without the roles).
    this.addSql(`update "users" set "roles" = array['custodial_account', 'patient']::text[] || "roles" where "password_hash" is null and "created_user_id" is not null;`);
  }

}
