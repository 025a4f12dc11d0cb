import { Directive, Field, ID, ObjectType } from 'type-graphql';
import { connectionOf } from '../../graphql/connection';
import { PermissionNameValue } from '../permissions/permission.types';
import type { Permission } from '../permissions/permission.model';
import type { PatientReview as PatientReviewRecord } from './clinic-patient.entity';
import { PatientTag } from './clinics.types';
import type { PatientInvite as PatientInviteRecord } from './patient-invites.repository';
import type { PatientRow } from './patients.repository';

// Plain data read as properties (simpleResolvers).
@ObjectType({
  simpleResolvers: true,
  description: 'One review of a patient: a clinician looked at the patient’s data.',
})
export class PatientReview {
  @Field(() => ID, { description: 'The clinician (an account id) who reviewed the patient.' })
  clinicianId!: string;

  @Field(() => Date, { description: 'When the patient was reviewed.' })
  time!: Date;

  static from(review: PatientReviewRecord): PatientReview {
    return Object.assign(new PatientReview(), { clinicianId: review.clinicianId, time: new Date(review.time) });
  }
}

// Plain data read as properties (simpleResolvers): a page of 50 reads about 700 of its fields;
// `tags` and `dataSources` keep their field resolvers.
@ObjectType({
  simpleResolvers: true,
  description:
    'A patient of a clinic: an account, the clinic’s record of it (name, birth date, MRN, tags, reviews) and what the patient lets the clinic do with its data. The clinic’s members and admins and server tokens may read it.',
})
// A federation entity: other subgraphs reference a patient by its clinic and account (src/graphql/federation.ts).
@Directive('@key(fields: "clinicId userId")')
export class ClinicPatient {
  @Field(() => ID, { description: 'The clinic.' })
  clinicId!: string;

  @Field(() => ID, { description: 'The patient’s account id.' })
  userId!: string;

  @Field({ description: 'The patient’s full name, as the clinic records it.' })
  fullName!: string;

  @Field(() => String, {
    nullable: true,
    description:
      'The birth date, `YYYY-MM-DD`; null when the clinic has not recorded it (patients who invited the clinic).',
  })
  birthDate!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'The email address the clinic reaches the patient at; null when none.',
  })
  email!: string | null;

  @Field(() => String, { nullable: true, description: 'The medical record number in the clinic; null when none.' })
  mrn!: string | null;

  /** The tag ids, resolved to tags by the field resolver. */
  tagIds!: string[];

  @Field(() => [PatientReview], { description: 'The latest reviews, newest first; at most 10 are kept.' })
  reviews!: PatientReview[];

  @Field(() => Date, { nullable: true, description: 'When the patient was last reviewed; null when never.' })
  lastReviewed!: Date | null;

  @Field(() => [PermissionNameValue], {
    description:
      'What the patient lets every clinician of the clinic do with its data: CUSTODIAN, VIEW, UPLOAD, NOTE. A patient the clinic created holds all four.',
  })
  permissions!: Permission[];

  @Field(() => Date, { description: 'When the account became a patient of the clinic.' })
  createdTime!: Date;

  @Field(() => Date, { description: 'When the clinic’s record of the patient last changed.' })
  updatedTime!: Date;

  static from(row: PatientRow): ClinicPatient {
    return Object.assign(new ClinicPatient(), {
      clinicId: row.clinicId,
      userId: row.userId,
      fullName: row.fullName,
      birthDate: row.birthDate ?? null,
      email: row.email ?? null,
      mrn: row.mrn ?? null,
      tagIds: row.tags,
      reviews: row.reviews.map(PatientReview.from),
      lastReviewed: row.lastReviewed ?? null,
      permissions: row.permissions,
      createdTime: row.createdTime,
      updatedTime: row.updatedTime,
    });
  }
}

export const ClinicPatientConnection = connectionOf(ClinicPatient, 'ClinicPatient', 'clinic patient');
export type ClinicPatientConnection = InstanceType<typeof ClinicPatientConnection>;

@ObjectType({
  description:
    'A user’s pending invitation to a clinic to follow its data: the clinic accepts it (the user becomes its patient) or it is revoked.',
})
export class PatientInvite {
  @Field(() => ID, { description: 'The invitation id: 24 lowercase hexadecimal characters.' })
  id!: string;

  @Field(() => ID, { description: 'The clinic invited.' })
  clinicId!: string;

  @Field(() => ID, { description: 'The inviting user’s account id.' })
  userId!: string;

  @Field(() => [PermissionNameValue], { description: 'What the clinic may do with the user’s data once it accepts.' })
  permissions!: Permission[];

  @Field(() => Date, { description: 'When the user invited the clinic.' })
  createdTime!: Date;

  @Field(() => Date, { description: 'When the invitation last changed.' })
  updatedTime!: Date;

  static from(invite: PatientInviteRecord): PatientInvite {
    return Object.assign(new PatientInvite(), invite);
  }
}

@ObjectType({ description: 'The result of a change to a clinic patient.' })
export class ClinicPatientPayload {
  @Field(() => ClinicPatient, { description: 'The patient as it is now.' })
  patient!: ClinicPatient;

  static of(patient: ClinicPatient): ClinicPatientPayload {
    return Object.assign(new ClinicPatientPayload(), { patient });
  }
}

@ObjectType({ description: 'The result of removing a patient from a clinic.' })
export class RemoveClinicPatientPayload {
  @Field(() => ID, { description: 'The clinic.' })
  clinicId!: string;

  @Field(() => ID, { description: 'The account that is no longer its patient.' })
  userId!: string;
}

@ObjectType({ description: 'The result of a change to what a patient grants its clinic.' })
export class UpdateClinicPatientPermissionsPayload {
  @Field(() => ClinicPatient, {
    nullable: true,
    description: 'The patient as it is now; null when it left the clinic.',
  })
  patient!: ClinicPatient | null;
}

@ObjectType({ description: 'The result of a change to a patient tag.' })
export class PatientTagPayload {
  @Field(() => PatientTag, { description: 'The tag as it is now.' })
  tag!: PatientTag;
}

@ObjectType({ description: 'The result of deleting a patient tag.' })
export class DeletePatientTagPayload {
  @Field(() => ID, { description: 'The deleted tag’s id.' })
  tagId!: string;
}

@ObjectType({ description: 'The result of a change to a patient invitation.' })
export class PatientInvitePayload {
  @Field(() => PatientInvite, { description: 'The invitation.' })
  invite!: PatientInvite;
}
