import { Directive, Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { connectionOf } from '../../graphql/connection';
import { PermissionNameValue } from '../permissions/permission.types';
import type { Permission } from '../permissions/permission.model';
import type { PatientReview as PatientReviewRecord } from './clinic-patient.entity';
import { PatientTag } from './clinics.types';
import type { PatientInvite as PatientInviteRecord } from './patient-invites.repository';
import type { PatientFilter } from './patient-list';
import type { PatientRow } from './patients.repository';
import { FILTERABLE_STATS, isIntegerStat, statColumn } from '../glucose/period-stats';
import { describeStatistic, GlucoseSummaryKindValue, SummaryPeriodValue } from '../glucose/glucose-summary.types';
import { BgUnitsValue } from '../glucose/glucose-units.types';
import type { KindFilter, SummaryKind } from './patient-filters';

@ObjectType({ description: 'One review of a patient: a clinician looked at the patient’s data.' })
export class PatientReview {
  @Field(() => ID, { description: 'The clinician (an account id) who reviewed the patient.' })
  clinicianId!: string;

  @Field(() => Date, { description: 'When the patient was reviewed.' })
  time!: Date;

  static from(review: PatientReviewRecord): PatientReview {
    return Object.assign(new PatientReview(), { clinicianId: review.clinicianId, time: new Date(review.time) });
  }
}

@ObjectType({
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

/** A statistic's GraphQL enum name: `timeCGMUsePercent` → `TIME_CGM_USE_PERCENT`. */
const enumName = (statistic: string) => statColumn(statistic).toUpperCase();
const SUMMARY_NOTE =
  'Needs `summary` (CGM or BGM) and reads `period` of that summary; patients without the value come first ascending, last descending.';

/**
 * What a clinic's patient list sorts by: the record's fields, the summary dates and every
 * statistic of a CGM summary (BGM summaries have a subset), as an enum of many uniform values.
 */
export const ClinicPatientOrderField = {
  USER_ID: 'userId',
  FULL_NAME: 'fullName',
  BIRTH_DATE: 'birthDate',
  LAST_REVIEWED: 'lastReviewed',
  LAST_DATA: 'lastData',
  LAST_UPLOAD_DATE: 'lastUploadDate',
  FIRST_DATA: 'firstData',
  OUTDATED_SINCE: 'outdatedSince',
  ...Object.fromEntries(FILTERABLE_STATS.cgm.map((name) => [enumName(name), name])),
} as Record<string, string> & {
  USER_ID: 'userId';
  FULL_NAME: 'fullName';
  BIRTH_DATE: 'birthDate';
  LAST_REVIEWED: 'lastReviewed';
};
export type ClinicPatientOrderField = string;

registerEnumType(ClinicPatientOrderField, {
  name: 'ClinicPatientOrderField',
  description:
    'What a clinic’s patient list is sorted by; ties are broken by account id. Summary statistics are those of CgmPeriod and BgmPeriod (percentages as fractions; the order of glucose statistics is the same in either unit).',
  valuesConfig: {
    USER_ID: { description: 'The account id (the default).' },
    FULL_NAME: { description: 'The full name, ignoring letter case.' },
    BIRTH_DATE: { description: 'The birth date; patients without one come first ascending, last descending.' },
    LAST_REVIEWED: { description: 'The last review; patients never reviewed come first ascending, last descending.' },
    LAST_DATA: { description: `The time of the summary’s newest reading. ${SUMMARY_NOTE}` },
    LAST_UPLOAD_DATE: { description: `When the summary’s newest readings were uploaded. ${SUMMARY_NOTE}` },
    FIRST_DATA: { description: `The time of the oldest reading the summary keeps. ${SUMMARY_NOTE}` },
    OUTDATED_SINCE: {
      description: `Since when the summary waits for an update (none when up to date). ${SUMMARY_NOTE}`,
    },
    ...Object.fromEntries(
      FILTERABLE_STATS.cgm.map((name) => [
        enumName(name),
        {
          description: `${describeStatistic(name, false).replaceAll(', in `units`', '')} The period’s \`${name}\`${FILTERABLE_STATS.bgm.includes(name) ? '' : ' (CGM only)'}. ${SUMMARY_NOTE}`,
        },
      ]),
    ),
  },
});

export enum OrderDirection {
  ASC = 'ASC',
  DESC = 'DESC',
}

registerEnumType(OrderDirection, {
  name: 'OrderDirection',
  description: 'Which way a list is sorted.',
  valuesConfig: {
    ASC: { description: 'Smallest (or earliest, or A) first.' },
    DESC: { description: 'Largest (or latest, or Z) first.' },
  },
});

@InputType({ description: 'How to sort a clinic’s patients.' })
export class ClinicPatientOrder {
  @Field(() => ClinicPatientOrderField, { description: 'What to sort by.' })
  field!: ClinicPatientOrderField;

  @Field(() => OrderDirection, { description: 'Which way.' })
  direction!: OrderDirection;

  @Field(() => GlucoseSummaryKindValue, {
    nullable: true,
    description:
      'The summary a statistic or summary date is read from; required to sort by one (BAD_USER_INPUT without it), ignored otherwise.',
  })
  summary?: GlucoseSummaryKindValue | null;

  @Field(() => SummaryPeriodValue, {
    nullable: true,
    description: 'The period of the summary to sort by; FOURTEEN_DAYS when omitted.',
  })
  period?: SummaryPeriodValue | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'True: sort by the period just before `period` (of the same length) instead; false when omitted.',
  })
  usePreviousPeriod?: boolean | null;
}

@InputType({
  description:
    'Bounds on a real-valued statistic: each bound given must hold, so `{ gte: 0.5, lt: 0.7 }` is a range. A patient without the statistic (no summary, or too little data for it) never matches.',
})
export class FloatComparison {
  @Field(() => Float, { nullable: true, description: 'Greater than this value.' })
  gt?: number | null;

  @Field(() => Float, { nullable: true, description: 'Greater than or equal to this value.' })
  gte?: number | null;

  @Field(() => Float, { nullable: true, description: 'Less than this value.' })
  lt?: number | null;

  @Field(() => Float, { nullable: true, description: 'Less than or equal to this value.' })
  lte?: number | null;
}

@InputType({
  description:
    'Bounds on a statistic counted in whole minutes or readings: each bound given must hold. A patient without the statistic never matches.',
})
export class IntComparison {
  @Field(() => Int, { nullable: true, description: 'Greater than this value.' })
  gt?: number | null;

  @Field(() => Int, { nullable: true, description: 'Greater than or equal to this value.' })
  gte?: number | null;

  @Field(() => Int, { nullable: true, description: 'Less than this value.' })
  lt?: number | null;

  @Field(() => Int, { nullable: true, description: 'Less than or equal to this value.' })
  lte?: number | null;
}

/** The dates of a kind filter; every other field is a statistic's comparison. */
const DATE_FIELDS = ['lastDataFrom', 'lastDataTo'];

/** Declares a comparison field per statistic of `kind` on `target` (a loop: the list is long and uniform). */
function comparisonFields(target: object, kind: SummaryKind): void {
  const label = kind === 'cgm' ? 'CgmPeriod' : 'BgmPeriod';
  for (const name of [...FILTERABLE_STATS[kind], 'averageGlucose', 'averageGlucoseDelta'])
    Field(() => (isIntegerStat(name) ? IntComparison : FloatComparison), {
      nullable: true,
      description: `${describeStatistic(name, false).replaceAll('`units`', 'the filter’s `units`')} Bounds on ${label}.${name}.`,
    })(target, name);
}

@InputType({
  description:
    'Conditions on the patients’ CGM summary for the filter’s period; all must hold. A field per CgmPeriod statistic, plus the date of the newest reading.',
})
export class CgmPatientFilter {
  @Field(() => Date, {
    nullable: true,
    description: 'Only patients whose newest CGM reading is at or after this time.',
  })
  lastDataFrom?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Only patients whose newest CGM reading is before this time.' })
  lastDataTo?: Date | null;
}
comparisonFields(CgmPatientFilter.prototype, 'cgm');

@InputType({
  description:
    'Conditions on the patients’ fingerstick (BGM) summary for the filter’s period; all must hold. A field per BgmPeriod statistic, plus the date of the newest reading.',
})
export class BgmPatientFilter {
  @Field(() => Date, {
    nullable: true,
    description: 'Only patients whose newest fingerstick reading is at or after this time.',
  })
  lastDataFrom?: Date | null;

  @Field(() => Date, {
    nullable: true,
    description: 'Only patients whose newest fingerstick reading is before this time.',
  })
  lastDataTo?: Date | null;
}
comparisonFields(BgmPatientFilter.prototype, 'bgm');

function kindFilter(given: CgmPatientFilter | BgmPatientFilter | null | undefined): KindFilter | null {
  if (!given) return null;
  const entries = Object.entries(given as Record<string, unknown>);
  return {
    lastDataFrom: given.lastDataFrom ?? null,
    lastDataTo: given.lastDataTo ?? null,
    statistics: Object.fromEntries(entries.filter(([name]) => !DATE_FIELDS.includes(name))) as KindFilter['statistics'],
  };
}

@InputType({ description: 'Which of a clinic’s patients to list; all when empty.' })
export class ClinicPatientFilter {
  @Field(() => String, {
    nullable: true,
    description: 'Text (at most 100 characters) found in the full name, email or MRN, ignoring letter case.',
  })
  search?: string | null;

  @Field(() => [ID], { nullable: true, description: 'Patient tag ids: only patients carrying all of them.' })
  tags?: string[] | null;

  @Field(() => Date, {
    nullable: true,
    description: 'Only patients last reviewed at or before this time; patients never reviewed are left out.',
  })
  lastReviewed?: Date | null;

  @Field(() => SummaryPeriodValue, {
    nullable: true,
    description: 'The summary period `cgm` and `bgm` conditions read; FOURTEEN_DAYS when omitted.',
  })
  period?: SummaryPeriodValue | null;

  @Field(() => BgUnitsValue, {
    nullable: true,
    description:
      'The unit of the glucose bounds in `cgm` and `bgm` (averageGlucose, standardDeviation, min, max and their deltas; averageGlucoseMmol’s are always mmol/L); the clinic’s preferredBgUnits when omitted.',
  })
  units?: BgUnitsValue | null;

  @Field(() => Boolean, {
    nullable: true,
    description:
      'True: `cgm` and `bgm` conditions read the period just before `period` (of the same length) instead; false when omitted.',
  })
  usePreviousPeriod?: boolean | null;

  @Field(() => CgmPatientFilter, { nullable: true, description: 'Conditions on the patients’ CGM summary.' })
  cgm?: CgmPatientFilter | null;

  @Field(() => BgmPatientFilter, { nullable: true, description: 'Conditions on the patients’ fingerstick summary.' })
  bgm?: BgmPatientFilter | null;

  /** The filter as the patients service takes it. */
  static toDomain(filter: ClinicPatientFilter | null): PatientFilter {
    if (!filter) return {};
    const { search, tags, lastReviewed, period, usePreviousPeriod, units, cgm, bgm } = filter;
    const summary =
      cgm || bgm || period || usePreviousPeriod
        ? {
            period: period ?? null,
            previous: usePreviousPeriod ?? null,
            units: units ?? null,
            cgm: kindFilter(cgm),
            bgm: kindFilter(bgm),
          }
        : null;
    return { search, tags, lastReviewed, summary };
  }
}

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
