import { Field, ID, InputType } from 'type-graphql';
import { PermissionNameValue } from '../permissions/permission.types';
import type { Permission } from '../permissions/permission.model';

@InputType({ description: 'A patient the clinic creates: a new account with no login, the clinic its custodian.' })
export class CreateClinicPatientInput {
  @Field(() => ID, { description: 'The clinic.' })
  clinicId!: string;

  @Field({ description: 'The full name: 1 to 150 characters, not only spaces.' })
  fullName!: string;

  @Field({ description: 'The birth date, `YYYY-MM-DD`, from 1900 to today.' })
  birthDate!: string;

  @Field(() => String, {
    nullable: true,
    description: 'An email address, kept on the account (taken addresses are refused with CONFLICT).',
  })
  email?: string | null;

  @Field(() => String, { nullable: true, description: 'The medical record number, not empty when given.' })
  mrn?: string | null;

  @Field(() => [ID], { nullable: true, description: 'Tag ids of the clinic, each once.' })
  tags?: string[] | null;
}

/** The clinic's record of a patient joining from an existing account, each field optional. */
@InputType({ description: 'The clinic’s record of a patient joining from an existing account.' })
export class PatientRecordInput {
  @Field(() => String, { nullable: true, description: 'The full name; the account’s address when omitted.' })
  fullName?: string | null;

  @Field(() => String, { nullable: true, description: 'The birth date, `YYYY-MM-DD`.' })
  birthDate?: string | null;

  @Field(() => String, { nullable: true, description: 'The medical record number.' })
  mrn?: string | null;

  @Field(() => [ID], { nullable: true, description: 'Tag ids of the clinic.' })
  tags?: string[] | null;
}

@InputType({ description: 'An existing account made a patient (server tokens only; users invite the clinic).' })
export class AddClinicPatientInput extends PatientRecordInput {
  @Field(() => ID, { description: 'The clinic.' })
  clinicId!: string;

  @Field(() => ID, { description: 'The account.' })
  userId!: string;

  @Field(() => [PermissionNameValue], { description: 'What the patient lets the clinic do: VIEW, UPLOAD, NOTE.' })
  permissions!: Permission[];
}

@InputType({
  description: 'Changes to the clinic’s record of a patient; omitted fields stay, null clears an optional one.',
})
export class UpdateClinicPatientInput {
  @Field(() => ID, { description: 'The clinic.' })
  clinicId!: string;

  @Field(() => ID, { description: 'The patient’s account id.' })
  userId!: string;

  @Field(() => String, { nullable: true, description: 'The full name, 1 to 150 characters; cannot be cleared.' })
  fullName?: string | null;

  @Field(() => String, { nullable: true, description: 'The birth date, `YYYY-MM-DD`; cannot be cleared.' })
  birthDate?: string | null;

  @Field(() => String, { nullable: true, description: 'The email address the clinic reaches the patient at.' })
  email?: string | null;

  @Field(() => String, { nullable: true, description: 'The medical record number.' })
  mrn?: string | null;

  @Field(() => [ID], {
    nullable: true,
    description: 'The tag ids, replacing the patient’s tags; null or empty removes all.',
  })
  tags?: string[] | null;
}

@InputType({ description: 'A patient of a clinic.' })
export class ClinicPatientInput {
  @Field(() => ID, { description: 'The clinic.' })
  clinicId!: string;

  @Field(() => ID, { description: 'The patient’s account id.' })
  userId!: string;
}

@InputType({ description: 'What a patient lets its clinic do, replacing what it granted.' })
export class UpdateClinicPatientPermissionsInput {
  @Field(() => ID, { description: 'The clinic.' })
  clinicId!: string;

  @Field(() => ID, { description: 'The patient: only the patient itself (or a server token) may.' })
  userId!: string;

  @Field(() => [PermissionNameValue], {
    description:
      'VIEW, UPLOAD, NOTE, each once (CUSTODIAN may be kept, never added). Empty: the patient leaves the clinic.',
  })
  permissions!: Permission[];
}

@InputType({ description: 'One permission a patient takes back from its clinic.' })
export class RevokeClinicPatientPermissionInput {
  @Field(() => ID, { description: 'The clinic.' })
  clinicId!: string;

  @Field(() => ID, { description: 'The patient: only the patient itself (or a server token) may.' })
  userId!: string;

  @Field(() => PermissionNameValue, { description: 'The permission; taking back the last one leaves the clinic.' })
  permission!: Permission;
}

@InputType({ description: 'A new patient tag of a clinic.' })
export class CreatePatientTagInput {
  @Field(() => ID, { description: 'The clinic.' })
  clinicId!: string;

  @Field({
    description:
      'The name: 1 to 20 letters, digits, spaces and `_+<>-`, not starting with a space; unique in the clinic ignoring letter case.',
  })
  name!: string;
}

@InputType({ description: 'A new name for a patient tag.' })
export class RenamePatientTagInput {
  @Field(() => ID, { description: 'The clinic.' })
  clinicId!: string;

  @Field(() => ID, { description: 'The tag.' })
  tagId!: string;

  @Field({ description: 'The new name, as for a new tag.' })
  name!: string;
}

@InputType({ description: 'A patient tag to delete.' })
export class DeletePatientTagInput {
  @Field(() => ID, { description: 'The clinic.' })
  clinicId!: string;

  @Field(() => ID, { description: 'The tag.' })
  tagId!: string;
}

@InputType({ description: 'A user invites a clinic to follow its data.' })
export class InviteClinicInput {
  @Field(() => ID, { description: 'The inviting user: the caller itself (or any user, for a server token).' })
  userId!: string;

  @Field({ description: 'The clinic’s share code, in any letter case.' })
  shareCode!: string;

  @Field(() => [PermissionNameValue], { description: 'What the clinic may do once it accepts: VIEW, UPLOAD, NOTE.' })
  permissions!: Permission[];
}

@InputType({
  description: 'A clinic accepts a user’s invitation; the fields start the clinic’s record of the patient.',
})
export class AcceptPatientInviteInput extends PatientRecordInput {
  @Field(() => ID, { description: 'The clinic.' })
  clinicId!: string;

  @Field(() => ID, { description: 'The invitation.' })
  inviteId!: string;
}

@InputType({ description: 'A pending invitation to withdraw.' })
export class RevokePatientInviteInput {
  @Field(() => ID, { description: 'The clinic.' })
  clinicId!: string;

  @Field(() => ID, { description: 'The invitation.' })
  inviteId!: string;
}
