import { conflict, forbidden, invalid, notFound, unauthenticated } from '../../kernel/errors';
import { pageArgs, pageOf, type PagedList } from '../../kernel/paging';
import { isAuthenticated } from '../../kernel/principal';
import type { Scope } from '../../kernel/scope';
import { assertUserId } from '../../kernel/validation';
import type { AccessPolicy } from '../permissions/access-policy';
import type { Permission } from '../permissions/permission.model';
import type { PatientReview } from './clinic-patient.entity';
import { filtersStatisticsOnly, type ClinicTotals } from './clinic-totals';
import type { ClinicsService } from './clinics.service';
import { assertClinicAccess, assertPatientAccess, recordPatientAccess, type BackingEndsHook } from './membership';
import type { PatientAccounts } from './patient-accounts';
import {
  assertClinicPermissions,
  checkPatientChanges,
  checkPatientFields,
  CUSTODIAL_PERMISSIONS,
  MAX_NAME_LENGTH,
  type PatientChanges,
  type PatientFields,
} from './patient-fields';
import { isPatientKey, patientKey, patientListName, type PageCompanions, type PatientFilter } from './patient-list';
import { checkPatientList, type RequestedOrder } from './patient-list-query';
import type { PatientTagsService } from './patient-tags.service';
import { countPatients, filtersPatients, forgetPatient, loadPatient, patientPage } from './patients.loaders';
import {
  deletePatient,
  deletePatientsOfUser,
  insertPatient,
  isUniqueViolation,
  lockReviews,
  patientsOfUser,
  setPatientPermissions,
  updatePatient,
  writeReviews,
  type NewPatientRecord,
  type PatientRow,
} from './patients.repository';
import { arrayLiteral } from '../../kernel/sql';
import { newestReviewsFirst, revertNewest } from './reviews';

/** What a patient added from an existing account starts with. */
export interface ExistingPatient extends Partial<PatientFields> {
  permissions: readonly string[];
}

/**
 * A clinic's patients (Tidepool's clinic patients): each is an account, with the clinic's record
 * of it and the permissions the patient granted the clinic. MEMBERs and ADMINs list, read,
 * create and update patients and review them; ADMINs remove them; the patient itself sets or
 * revokes what it granted. Server tokens may do all.
 */
export class PatientsService {
  private readonly backingEnds: BackingEndsHook[] = [];

  constructor(
    private readonly clinics: ClinicsService,
    private readonly tags: PatientTagsService,
    private readonly accounts: PatientAccounts,
    private readonly access: AccessPolicy,
    private readonly totals: ClinicTotals,
  ) {}

  /** Registers what must end when the clinic stops backing access to a patient (leaves, or loses custodian). */
  onBackingEnds(hook: BackingEndsHook): void {
    this.backingEnds.push(hook);
  }

  /** A custodial patient: a new account with no login, the clinic its custodian. */
  async create(scope: Scope, clinicId: string, fields: PatientFields): Promise<PatientRow> {
    await this.clinics.find(scope, clinicId);
    await assertClinicAccess(scope, clinicId, 'read');
    const checked = checkPatientFields(fields);
    await this.tags.assertTagsOf(scope, clinicId, checked.tags);
    const userId = await scope.em.transactional(async (tx) => {
      const id = await this.accounts.createManaged(tx, checked.email, scope.principal.userId);
      await this.insert(tx, clinicId, id, checked, CUSTODIAL_PERMISSIONS);
      return id;
    });
    return this.reread(scope, clinicId, userId);
  }

  /** An existing account becomes a patient with the permissions it gave (Tidepool: internal, servers only). */
  async add(scope: Scope, clinicId: string, userId: string, input: ExistingPatient): Promise<PatientRow> {
    await this.clinics.find(scope, clinicId);
    assertUserId(userId, 'patientId');
    if (!scope.principal.isServer)
      throw forbidden('Only a server adds an existing account as a patient; users invite the clinic');
    const permissions = assertClinicPermissions(input.permissions);
    await this.assertAccount(scope, userId);
    return this.admit(scope, clinicId, userId, input, permissions);
  }

  /** NOT_FOUND unless `userId` is an account: a clinic's patient record always has one behind it. */
  async assertAccount(scope: Scope, userId: string): Promise<void> {
    if (!(await this.accounts.existing(scope, [userId])).has(userId)) throw notFound(`User ${userId} does not exist`);
  }

  /**
   * Makes `userId` a patient with `permissions`, its record from `input` (the name defaults to
   * the account's address): a 409 when it already is one. Used by add and by accepted invitations.
   */
  async admit(
    scope: Scope,
    clinicId: string,
    userId: string,
    input: Partial<PatientFields>,
    permissions: readonly Permission[],
    within: (tx: Scope['em']) => Promise<void> = async () => undefined,
  ): Promise<PatientRow> {
    const [address] = await this.accounts.sharedAddresses(scope, userId);
    const checked = checkPatientChanges({
      ...input,
      fullName: input.fullName ?? (address ?? userId).slice(0, MAX_NAME_LENGTH),
    });
    await this.tags.assertTagsOf(scope, clinicId, checked.tags ?? []);
    const record = {
      fullName: checked.fullName!,
      birthDate: checked.birthDate ?? null,
      email: checked.email === undefined ? (address ?? null) : checked.email,
      mrn: checked.mrn ?? null,
      tags: checked.tags ?? [],
    };
    await scope.em.transactional(async (tx) => {
      await within(tx);
      await this.insert(tx, clinicId, userId, record, permissions);
    });
    return this.reread(scope, clinicId, userId);
  }

  async get(scope: Scope, clinicId: string, userId: string): Promise<PatientRow> {
    await this.clinics.find(scope, clinicId);
    assertUserId(userId, 'patientId');
    await assertPatientAccess(scope, clinicId, userId, 'read');
    return this.existing(scope, clinicId, userId);
  }

  /** Changes the clinic's record of a patient: the fields given, others stay. */
  async update(scope: Scope, clinicId: string, userId: string, changes: PatientChanges): Promise<PatientRow> {
    await this.get(scope, clinicId, userId);
    const checked = checkPatientChanges(changes);
    if (checked.tags) await this.tags.assertTagsOf(scope, clinicId, checked.tags);
    const changed = {
      full_name: checked.fullName,
      birth_date: checked.birthDate,
      email: checked.email,
      mrn: checked.mrn,
      tags: checked.tags && arrayLiteral(checked.tags),
    };
    // Changes run in a transaction, even of one statement: it carries the request's access-log entries.
    await scope.em.transactional((tx) => updatePatient(tx, clinicId, userId, changed));
    return this.reread(scope, clinicId, userId);
  }

  /** Removes a patient from the clinic, and with it the clinic's access: its ADMINs, the patient itself, servers. */
  async remove(scope: Scope, clinicId: string, userId: string): Promise<void> {
    await this.clinics.find(scope, clinicId);
    assertUserId(userId, 'patientId');
    if (scope.principal.userId !== userId || scope.principal.isServer)
      await assertClinicAccess(scope, clinicId, 'admin');
    await this.existing(scope, clinicId, userId);
    await this.delete(scope, clinicId, userId);
  }

  /**
   * The patient replaces what it grants the clinic (the patient itself or a server); granting
   * nothing removes it from the clinic, as in Tidepool. A null answer: no longer a patient.
   */
  async setPermissions(
    scope: Scope,
    clinicId: string,
    userId: string,
    permissions: readonly string[],
  ): Promise<PatientRow | null> {
    await this.clinics.find(scope, clinicId);
    assertUserId(userId, 'patientId');
    this.assertPatientItself(scope, userId);
    const patient = await this.existing(scope, clinicId, userId);
    if (!permissions.length) {
      await this.delete(scope, clinicId, userId);
      return null;
    }
    const checked = assertClinicPermissions(permissions, patient.permissions);
    await scope.em.transactional(async (tx) => {
      await setPatientPermissions(tx, clinicId, userId, checked);
      const custodianTaken = patient.permissions.includes('custodian') && !checked.includes('custodian');
      if (custodianTaken) for (const hook of this.backingEnds) await hook(tx, clinicId, userId);
    });
    return this.reread(scope, clinicId, userId);
  }

  /** Takes one permission back; the last one removes the patient from the clinic. */
  async revokePermission(
    scope: Scope,
    clinicId: string,
    userId: string,
    permission: string,
  ): Promise<PatientRow | null> {
    await this.clinics.find(scope, clinicId);
    assertUserId(userId, 'patientId');
    this.assertPatientItself(scope, userId);
    const patient = await this.existing(scope, clinicId, userId);
    if (!(CUSTODIAL_PERMISSIONS as readonly string[]).includes(permission))
      throw invalid(`permission must be one of ${CUSTODIAL_PERMISSIONS.join(', ')}`, 'permission');
    return this.setPermissions(
      scope,
      clinicId,
      userId,
      patient.permissions.filter((held) => held !== permission),
    );
  }

  /** The calling clinician marks the patient reviewed now: newest first, ten kept. */
  async review(scope: Scope, clinicId: string, userId: string): Promise<PatientRow> {
    const clinicianId = this.clinician(scope);
    await this.get(scope, clinicId, userId);
    await this.changeReviews(scope, clinicId, userId, (reviews) =>
      newestReviewsFirst(reviews, { clinicianId, time: new Date().toISOString() }),
    );
    return this.reread(scope, clinicId, userId);
  }

  /** Takes back the newest review: 404 when there is none, 409 when another clinician made it. */
  async revertReview(scope: Scope, clinicId: string, userId: string): Promise<PatientRow> {
    await this.get(scope, clinicId, userId);
    const by = scope.principal.isServer ? null : this.clinician(scope);
    await this.changeReviews(scope, clinicId, userId, (reviews) => revertNewest(reviews, by));
    return this.reread(scope, clinicId, userId);
  }

  /**
   * A page of the clinic's patients: MEMBERs, ADMINs and servers. Sorting by a summary statistic
   * or date names the summary (`order.summary`: its kind, and the period, 14 days by default).
   * `companions` are read in the page's statement, for the request's later questions (count,
   * clinicCopiesOfClinicPatient).
   */
  async list(
    scope: Scope,
    clinicId: string,
    filter: PatientFilter,
    requested: RequestedOrder,
    first: number | null | undefined,
    after: string | null | undefined,
    offset?: number | null,
    companions: PageCompanions = {},
  ): Promise<PagedList<PatientRow>> {
    await assertClinicAccess(scope, clinicId, 'read');
    const { filter: checked, order } = await checkPatientList(scope, clinicId, filter, requested);
    const list = patientListName(clinicId, checked, order);
    const args = pageArgs(list, first, after, isPatientKey(order), offset);
    const count = () => this.countOf(scope, clinicId, checked);
    // Started with the page, to be answered with it: see PageCompanions.counts.
    if (companions.counts && !args.after)
      for (const counting of [count(), this.totals.patients(scope, clinicId)]) counting.catch(() => undefined);
    const rows = await patientPage(scope, clinicId, checked, order, args, companions);
    recordPatientAccess(
      scope,
      clinicId,
      rows.map((row) => row.userId),
    );
    return { page: pageOf(list, args, rows, patientKey(order)), count };
  }

  /** How many patients the clinic has. */
  async count(scope: Scope, clinicId: string): Promise<number> {
    await assertClinicAccess(scope, clinicId, 'read');
    return this.totals.patients(scope, clinicId);
  }

  /** The clinics a user is a patient of: the user itself, its custodians and servers. */
  async clinicsOf(scope: Scope, userId: string): Promise<PatientRow[]> {
    assertUserId(userId);
    await this.access.assertAllowed(scope, userId, ['custodian']);
    return patientsOfUser(scope.em, userId);
  }

  /** An account is deleted: it is no longer anyone's patient. */
  async forgetUser(scope: Scope, userId: string): Promise<void> {
    for (const clinicId of await deletePatientsOfUser(scope.em, userId)) this.totals.changing(clinicId);
  }

  /**
   * How many of the clinic's patients `filter` holds: kept between requests when it filters none
   * or only on glucose summaries (ClinicTotals), else counted for the request.
   */
  private countOf(scope: Scope, clinicId: string, filter: PatientFilter): Promise<number> {
    if (!filtersPatients(filter)) return this.totals.patients(scope, clinicId);
    if (!filtersStatisticsOnly(filter)) return countPatients(scope, clinicId, filter);
    return countPatients(scope, clinicId, filter, () => this.totals.matching(scope, clinicId, filter));
  }

  private async existing(scope: Scope, clinicId: string, userId: string): Promise<PatientRow> {
    const patient = await loadPatient(scope, clinicId, userId);
    if (!patient) throw notFound(`User ${userId} is not a patient of clinic ${clinicId}`);
    return patient;
  }

  private async reread(scope: Scope, clinicId: string, userId: string): Promise<PatientRow> {
    forgetPatient(scope, clinicId, userId);
    return this.existing(scope, clinicId, userId);
  }

  private async delete(scope: Scope, clinicId: string, userId: string): Promise<void> {
    this.totals.changing(clinicId);
    await scope.em.transactional(async (tx) => {
      await deletePatient(tx, clinicId, userId);
      for (const hook of this.backingEnds) await hook(tx, clinicId, userId);
    });
    forgetPatient(scope, clinicId, userId);
  }

  private async insert(
    tx: Scope['em'],
    clinicId: string,
    userId: string,
    record: NewPatientRecord,
    permissions: readonly Permission[],
  ): Promise<void> {
    this.totals.changing(clinicId);
    try {
      await insertPatient(tx, clinicId, userId, record, permissions);
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`User ${userId} is already a patient of clinic ${clinicId}`);
      throw error;
    }
  }

  /** Reads and rewrites the reviews under a row lock, so two reviews at once both count. */
  private async changeReviews(
    scope: Scope,
    clinicId: string,
    userId: string,
    change: (reviews: PatientReview[]) => PatientReview[],
  ): Promise<void> {
    await scope.em.transactional(async (tx) => {
      const current = await lockReviews(tx, clinicId, userId);
      if (!current) throw notFound(`User ${userId} is not a patient of clinic ${clinicId}`);
      await writeReviews(tx, clinicId, userId, change(current));
    });
  }

  /** A review is a clinician's act: a user token. */
  private clinician(scope: Scope): string {
    const { principal } = scope;
    if (!isAuthenticated(principal)) throw unauthenticated();
    if (principal.userId === null) throw forbidden('A review is made by a clinician: use a clinician’s token');
    return principal.userId;
  }

  private assertPatientItself(scope: Scope, userId: string): void {
    const { principal } = scope;
    if (!isAuthenticated(principal)) throw unauthenticated();
    if (!principal.isServer && principal.userId !== userId)
      throw forbidden('Only the patient itself changes what it grants the clinic');
  }
}
