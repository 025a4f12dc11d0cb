import { Migration } from '@mikro-orm/migrations';

export class Migration20261124173304_clinics extends Migration {

  override name = 'Migration20261124173304_clinics';

  override up(): void | Promise<void> {
    this.addSql(`create table "clinics" ("id" varchar(24) not null, "name" text not null, "address" text null, "city" text null, "postal_code" text null, "state" text null, "country" text null, "phone_numbers" jsonb not null, "clinic_type" varchar(32) null, "clinic_size" varchar(16) null, "website" text null, "preferred_bg_units" varchar(8) not null, "timezone" varchar(64) null, "suppressed_notifications" jsonb null, "share_code" varchar(16) not null, "can_migrate" boolean not null, "tier" varchar(32) not null, "tier_description" text not null, "ehr_enabled" boolean not null, "last_deleted_patient_tag" jsonb null, "created_time" timestamptz not null, "updated_time" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "clinics" add constraint "clinics_share_code_unique" unique ("share_code");`);
    this.addSql(`create index "clinics_created_time_index" on "clinics" ("created_time");`);

    this.addSql(`create table "clinicians" ("clinic_id" varchar(24) not null, "user_id" varchar(36) not null, "email" text null, "name" text null, "roles" text[] not null, "created_time" timestamptz not null, "updated_time" timestamptz not null, primary key ("clinic_id", "user_id"));`);
    this.addSql(`create index "clinicians_user_id_index" on "clinicians" ("user_id");`);

    this.addSql(`create table "clinician_invites" ("id" varchar(24) not null, "clinic_id" varchar(24) not null, "email" text not null, "name" text null, "roles" text[] not null, "created_time" timestamptz not null, "updated_time" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "clinician_invites_email_index" on "clinician_invites" ("email");`);
    this.addSql(`alter table "clinician_invites" add constraint "clinician_invites_clinic_id_email_unique" unique ("clinic_id", "email");`);

    this.addSql(`create table "clinic_patients" ("clinic_id" varchar(24) not null, "user_id" varchar(36) not null, "full_name" text not null, "birth_date" date null, "email" text null, "mrn" text null, "tags" text[] not null, "permissions" text[] not null, "reviews" jsonb not null, "last_reviewed" timestamptz null, "created_time" timestamptz not null, "updated_time" timestamptz not null, primary key ("clinic_id", "user_id"));`);
    this.addSql(`create index "clinic_patients_user_id_index" on "clinic_patients" ("user_id");`);

    this.addSql(`create table "patient_invites" ("id" varchar(24) not null, "clinic_id" varchar(24) not null, "user_id" varchar(36) not null, "permissions" text[] not null, "created_time" timestamptz not null, "updated_time" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "patient_invites_clinic_id_index" on "patient_invites" ("clinic_id");`);
    this.addSql(`create index "patient_invites_user_id_index" on "patient_invites" ("user_id");`);
    this.addSql(`alter table "patient_invites" add constraint "patient_invites_clinic_id_user_id_unique" unique ("clinic_id", "user_id");`);

    this.addSql(`create table "patient_tags" ("id" varchar(24) not null, "clinic_id" varchar(24) not null, "name" text not null, "created_time" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "patient_tags_clinic_id_index" on "patient_tags" ("clinic_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "clinics" cascade;`);
    this.addSql(`drop table if exists "clinicians" cascade;`);
    this.addSql(`drop table if exists "clinician_invites" cascade;`);
    this.addSql(`drop table if exists "clinic_patients" cascade;`);
    this.addSql(`drop table if exists "patient_invites" cascade;`);
    this.addSql(`drop table if exists "patient_tags" cascade;`);
  }

}
