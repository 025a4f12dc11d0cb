import { Directive, Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { connectionOf } from '../../graphql/connection';
import { BgUnitsValue } from '../glucose/glucose-units.types';
import type { ClinicRecord, PatientTagValue } from './clinic.entity';
import type { BgUnits, ClinicSize, ClinicType } from './clinic-fields';

export enum ClinicTypeValue {
  PROVIDER_PRACTICE = 'PROVIDER_PRACTICE',
  HEALTHCARE_SYSTEM = 'HEALTHCARE_SYSTEM',
  VETERINARY_CLINIC = 'VETERINARY_CLINIC',
  OTHER = 'OTHER',
  RESEARCHER = 'RESEARCHER',
}

registerEnumType(ClinicTypeValue, {
  name: 'ClinicType',
  description: 'What kind of organisation the clinic is.',
  valuesConfig: {
    PROVIDER_PRACTICE: { description: 'A practice of one or more care providers.' },
    HEALTHCARE_SYSTEM: { description: 'A hospital or a network of care sites.' },
    VETERINARY_CLINIC: { description: 'A clinic caring for animals.' },
    OTHER: { description: 'None of the other kinds.' },
    RESEARCHER: { description: 'A research team following study participants.' },
  },
});

export enum ClinicSizeValue {
  SIZE_0_249 = 'SIZE_0_249',
  SIZE_250_499 = 'SIZE_250_499',
  SIZE_500_999 = 'SIZE_500_999',
  SIZE_1000_PLUS = 'SIZE_1000_PLUS',
}

registerEnumType(ClinicSizeValue, {
  name: 'ClinicSize',
  description: 'How many patients the clinic cares for, as it declared it.',
  valuesConfig: {
    SIZE_0_249: { description: 'Up to 249 patients.' },
    SIZE_250_499: { description: '250 to 499 patients.' },
    SIZE_500_999: { description: '500 to 999 patients.' },
    SIZE_1000_PLUS: { description: '1000 patients or more.' },
  },
});

@ObjectType({ description: 'A phone number of a clinic.' })
export class PhoneNumber {
  @Field(() => String, {
    nullable: true,
    description: 'What the number is for, e.g. `main` or `fax`; null when not said.',
  })
  type!: string | null;

  @Field({ description: 'The number as the clinic writes it, e.g. `+1 (555) 555-1212`.' })
  number!: string;
}

@InputType({ description: 'A phone number of a clinic.' })
export class PhoneNumberInput {
  @Field(() => String, { nullable: true, description: 'What the number is for, e.g. `main`; not empty when given.' })
  type?: string | null;

  @Field({ description: 'The number, not empty.' })
  number!: string;
}

// Plain data read as properties (simpleResolvers).
@ObjectType({ simpleResolvers: true, description: 'A label a clinic puts on its patients (e.g. a care program).' })
export class PatientTag {
  @Field(() => ID, { description: 'The tag id: 24 lowercase hexadecimal characters.' })
  id!: string;

  @Field({ description: 'The tag name shown to clinicians.' })
  name!: string;

  static from(tag: PatientTagValue): PatientTag {
    return Object.assign(new PatientTag(), { id: tag.id, name: tag.name });
  }
}

@ObjectType({ description: 'Notifications the clinic asked not to receive.' })
export class SuppressedNotifications {
  @Field(() => Boolean, {
    nullable: true,
    description: 'True: no notification when a user invites the clinic to follow its data; null when not set.',
  })
  patientClinicInvitation!: boolean | null;
}

@InputType({ description: 'Notifications the clinic asks not to receive.' })
export class SuppressedNotificationsInput {
  @Field(() => Boolean, {
    nullable: true,
    description: 'True: no notification when a user invites the clinic to follow its data.',
  })
  patientClinicInvitation?: boolean | null;
}

@ObjectType({
  description:
    'A clinic: a care team whose clinicians follow patients’ data. Its clinicians and server tokens may read it; its CLINIC_ADMINs change it.',
})
// A federation entity: other subgraphs reference it by `id` (src/graphql/federation.ts).
@Directive('@key(fields: "id")')
export class Clinic {
  @Field(() => ID, { description: 'The clinic id: 24 lowercase hexadecimal characters.' })
  id!: string;

  @Field({ description: 'The clinic’s name.' })
  name!: string;

  @Field(() => String, { nullable: true, description: 'Street address; null when not given.' })
  address!: string | null;

  @Field(() => String, { nullable: true, description: 'City; null when not given.' })
  city!: string | null;

  @Field(() => String, { nullable: true, description: 'Postal or ZIP code; null when not given.' })
  postalCode!: string | null;

  @Field(() => String, { nullable: true, description: 'State or province; null when not given.' })
  state!: string | null;

  @Field(() => String, { nullable: true, description: 'Country; null when not given.' })
  country!: string | null;

  @Field(() => [PhoneNumber], { description: 'The clinic’s phone numbers (at most 10); empty when none were given.' })
  phoneNumbers!: PhoneNumber[];

  @Field(() => ClinicTypeValue, { nullable: true, description: 'What kind of organisation it is; null when not said.' })
  clinicType!: ClinicType | null;

  @Field(() => ClinicSizeValue, { nullable: true, description: 'How many patients it cares for; null when not said.' })
  clinicSize!: ClinicSize | null;

  @Field(() => String, { nullable: true, description: 'The clinic’s web site (an http or https URL); null when none.' })
  website!: string | null;

  @Field(() => BgUnitsValue, { description: 'The glucose unit the clinic reads data in.' })
  preferredBgUnits!: BgUnits;

  @Field(() => String, {
    nullable: true,
    description: 'The clinic’s IANA time zone (e.g. `America/New_York`, `UTC`); null when not said.',
  })
  timezone!: string | null;

  @Field(() => SuppressedNotifications, {
    nullable: true,
    description: 'Notifications the clinic asked not to receive; null when it never said.',
  })
  suppressedNotifications!: SuppressedNotifications | null;

  @Field({
    description:
      'The code patients type to find the clinic: three groups of four letters and digits (`ABCD-EFGH-JKLM`), without look-alike characters, read in any letter case.',
  })
  shareCode!: string;

  @Field({ description: 'Whether legacy clinician accounts can still be migrated into the clinic: always false here.' })
  canMigrate!: boolean;

  @Field({ description: 'Whether the clinic exchanges data with an electronic health record system.' })
  ehrEnabled!: boolean;

  @Field({ description: 'The clinic’s service tier, e.g. `tier0100`.' })
  tier!: string;

  @Field({ description: 'The service tier in words, e.g. `Free`.' })
  tierDescription!: string;

  @Field(() => PatientTag, {
    nullable: true,
    description: 'The patient tag deleted last, kept so a client can tell what vanished; null when none was.',
  })
  lastDeletedPatientTag!: PatientTag | null;

  @Field(() => Date, { description: 'When the clinic was created.' })
  createdTime!: Date;

  @Field(() => Date, { description: 'When the clinic’s own fields last changed.' })
  updatedTime!: Date;

  static from(record: ClinicRecord): Clinic {
    const notifications = record.suppressedNotifications;
    return Object.assign(new Clinic(), {
      ...record,
      phoneNumbers: record.phoneNumbers.map((phone) =>
        Object.assign(new PhoneNumber(), { type: phone.type ?? null, number: phone.number }),
      ),
      clinicType: record.clinicType ?? null,
      clinicSize: record.clinicSize ?? null,
      suppressedNotifications: notifications
        ? Object.assign(new SuppressedNotifications(), {
            patientClinicInvitation: notifications.patientClinicInvitation ?? null,
          })
        : null,
      lastDeletedPatientTag: record.lastDeletedPatientTag ? PatientTag.from(record.lastDeletedPatientTag) : null,
    });
  }
}

export const ClinicConnection = connectionOf(Clinic, 'Clinic', 'clinic');
export type ClinicConnection = InstanceType<typeof ClinicConnection>;

@InputType({ description: 'Which clinics to list.' })
export class ClinicFilter {
  @Field(() => String, {
    nullable: true,
    description:
      'Only the clinic with this share code (any letter case). With it, any signed-in user finds that clinic; without it, a user lists its own clinics.',
  })
  shareCode?: string | null;

  @Field(() => Date, { nullable: true, description: 'Only clinics created at or after this time.' })
  createdTimeStart?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Only clinics created before this time (exclusive).' })
  createdTimeEnd?: Date | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'Only clinics whose electronic health record integration is (true) or is not (false) enabled.',
  })
  ehrEnabled?: boolean | null;
}

@InputType({ description: 'A new clinic’s fields.' })
export class CreateClinicInput {
  @Field({ description: 'The clinic’s name, not empty.' })
  name!: string;

  @Field(() => String, { nullable: true, description: 'Street address, not empty when given.' })
  address?: string | null;

  @Field(() => String, { nullable: true, description: 'City, not empty when given.' })
  city?: string | null;

  @Field(() => String, { nullable: true, description: 'Postal or ZIP code, not empty when given.' })
  postalCode?: string | null;

  @Field(() => String, { nullable: true, description: 'State or province, not empty when given.' })
  state?: string | null;

  @Field(() => String, { nullable: true, description: 'Country, not empty when given.' })
  country?: string | null;

  @Field(() => [PhoneNumberInput], {
    nullable: true,
    description: 'Phone numbers: 1 to 10 when given, no two alike.',
  })
  phoneNumbers?: PhoneNumberInput[] | null;

  @Field(() => ClinicTypeValue, { nullable: true, description: 'What kind of organisation it is.' })
  clinicType?: ClinicType | null;

  @Field(() => ClinicSizeValue, { nullable: true, description: 'How many patients it cares for.' })
  clinicSize?: ClinicSize | null;

  @Field(() => String, { nullable: true, description: 'The web site: an absolute http or https URL.' })
  website?: string | null;

  @Field(() => BgUnitsValue, { description: 'The glucose unit the clinic reads data in.' })
  preferredBgUnits!: BgUnits;

  @Field(() => String, {
    nullable: true,
    description: 'An IANA time zone name, legacy aliases included (`America/New_York`, `US/Eastern`, `UTC`).',
  })
  timezone?: string | null;

  @Field(() => SuppressedNotificationsInput, { nullable: true, description: 'Notifications not to receive.' })
  suppressedNotifications?: SuppressedNotificationsInput | null;
}

@InputType({ description: 'A clinic and its fields, replaced as a whole: what is omitted becomes empty.' })
export class UpdateClinicInput extends CreateClinicInput {
  @Field(() => ID, { description: 'The clinic to change.' })
  id!: string;
}

@ObjectType({ description: 'The result of `createClinic`.' })
export class CreateClinicPayload {
  @Field(() => Clinic, { description: 'The new clinic; the caller is its CLINIC_ADMIN.' })
  clinic!: Clinic;
}

@ObjectType({ description: 'The result of `updateClinic`.' })
export class UpdateClinicPayload {
  @Field(() => Clinic, { description: 'The clinic as changed.' })
  clinic!: Clinic;
}
