import { forbidden, notFound, unauthenticated } from '../../kernel/errors';
import { hexId } from '../../kernel/ids';
import { isTimeAndIdKey, pageArgs, pageOf, type PageArgs, type PagedList, type SortKey } from '../../kernel/paging';
import { isAuthenticated } from '../../kernel/principal';
import { holdBelowQuota, type CountedObjects } from '../../kernel/quota';
import type { Scope } from '../../kernel/scope';
import { assertSelfOrServer, type ClinicAccounts } from './clinic-accounts';
import { checkClinicFields, type ClinicFields } from './clinic-fields';
import { assertClinicId, OBJECT_ID_PATTERN } from './clinic-ids';
import type { ClinicRecord, PatientTagValue } from './clinic.entity';
import { clinicLoader, patientTagsLoader } from './clinics.loaders';
import {
  clinicByShareCode,
  clinicPage,
  countClinics,
  insertClinic,
  updateClinic,
  type ClinicQuery,
} from './clinics.repository';
import { insertClinician } from './clinicians.repository';
import type { ClinicMemberships } from './clinician-memberships';
import { isUniqueViolation } from './patients.repository';
import { assertClinicAccess, callerRoles } from './membership';
import { canonicalShareCode, newShareCode } from './share-code';

/** What new clinics start with: Tidepool's free tier, nothing to migrate, no EHR. */
const NEW_CLINIC = { tier: 'tier0100', tierDescription: 'Free', canMigrate: false, ehrEnabled: false } as const;

/** Filters of the clinic list. */
export interface ClinicFilter {
  shareCode?: string | null;
  createdTimeStart?: Date | null;
  createdTimeEnd?: Date | null;
  ehrEnabled?: boolean | null;
}

/** A clinic list's sort key: created time (ISO 8601), then id. */
const isClinicKey = isTimeAndIdKey(OBJECT_ID_PATTERN);

const clinicKey = (clinic: ClinicRecord): SortKey => [clinic.createdTime.toISOString(), clinic.id];

/** What CLINIC_QUOTA counts: the clinics an account is a clinician of, whatever its roles. */
const MEMBERSHIPS: CountedObjects = { kind: 'clinics', table: 'clinicians', name: 'clinic memberships' };

/** Clinics (spec §2.7, §4.8, §4.9): their records, who may read and change them, and the share code. */
export class ClinicsService {
  constructor(
    private readonly accounts: ClinicAccounts,
    /** The most clinics a user may be a clinician of and still create one (CLINIC_QUOTA). */
    private readonly membershipQuota: number,
    private readonly memberships: ClinicMemberships,
  ) {}

  /**
   * A user creates a clinic and becomes its CLINIC_ADMIN. A server token has no user to make
   * admin, and a clinic always has one, so it may not. Refused (FORBIDDEN) to a user who is a
   * clinician of its quota of clinics.
   */
  async create(scope: Scope, fields: ClinicFields): Promise<ClinicRecord> {
    const { principal } = scope;
    if (!isAuthenticated(principal)) throw unauthenticated();
    if (principal.userId === null) throw forbidden('A clinic is created by a user, who becomes its CLINIC_ADMIN');
    const checked = checkClinicFields(fields);
    const creatorId = principal.userId;
    const [email] = (await this.accounts.addresses(scope, creatorId)) ?? [];
    // A new share code collides once in 2^60 draws; should it, the clinic is written again with another.
    for (let attempt = 1; ; attempt++) {
      const now = new Date();
      const clinic = {
        id: hexId(24),
        ...checked,
        ...NEW_CLINIC,
        shareCode: newShareCode(),
        lastDeletedPatientTag: null,
        createdTime: now,
        updatedTime: now,
      } as ClinicRecord;
      try {
        await scope.em.transactional(async (tx) => {
          await holdBelowQuota(tx, MEMBERSHIPS, creatorId, this.membershipQuota);
          await insertClinic(tx, clinic);
          this.memberships.joining(creatorId);
          await insertClinician(tx, {
            clinicId: clinic.id,
            userId: creatorId,
            email: email ?? null,
            name: null,
            roles: ['CLINIC_ADMIN'],
            createdTime: now,
            updatedTime: now,
          });
        });
        callerRoles(scope, creatorId).clear(clinic.id);
        return clinic;
      } catch (error) {
        if (!isUniqueViolation(error) || attempt === 3) throw error;
      }
    }
  }

  /** A clinic: its clinicians (whatever their roles) and server tokens may read it. */
  async get(scope: Scope, clinicId: string): Promise<ClinicRecord> {
    const clinic = await this.find(scope, clinicId);
    await this.assertMember(scope, clinic.id);
    return clinic;
  }

  /** Replaces the clinic's own fields as a whole (omitted optional fields become empty); admins and servers. */
  async update(scope: Scope, clinicId: string, fields: ClinicFields): Promise<ClinicRecord> {
    const clinic = await this.find(scope, clinicId);
    await assertClinicAccess(scope, clinic.id, 'admin');
    const checked = checkClinicFields(fields);
    const updatedTime = new Date();
    await updateClinic(scope.em, clinic.id, { ...checked, updatedTime });
    return { ...clinic, ...checked, updatedTime };
  }

  /**
   * Clinics, oldest first. A server token lists them all; a user lists the clinics it is a
   * clinician of, or, given an exact share code, the one clinic that has it (how a patient finds
   * its clinic).
   */
  async list(
    scope: Scope,
    filter: ClinicFilter,
    first: number | null | undefined,
    after: string | null | undefined,
    offset?: number | null,
  ): Promise<PagedList<ClinicRecord>> {
    const { principal } = scope;
    if (!isAuthenticated(principal)) throw unauthenticated();
    const query: ClinicQuery = {
      ...filter,
      shareCode:
        filter.shareCode === null || filter.shareCode === undefined ? null : canonicalShareCode(filter.shareCode),
      memberId: principal.isServer || filter.shareCode != null ? null : principal.userId,
    };
    const list = `clinics:${JSON.stringify(query)}`;
    const args = pageArgs(list, first, after, isClinicKey, offset);
    if (!principal.isServer && principal.userId === null) return this.empty(list, args);
    // A code that cannot be one matches nothing, without a query.
    if (filter.shareCode != null && query.shareCode === null) return this.empty(list, args);
    const rows = await clinicPage(scope.em, query, args);
    return { page: pageOf(list, args, rows, clinicKey), count: () => countClinics(scope.em, query) };
  }

  /** The clinics a user is a clinician of, for the user itself and server tokens. */
  async ofUser(scope: Scope, userId: string, first?: number | null, after?: string | null, offset?: number | null) {
    assertSelfOrServer(scope, userId);
    const query: ClinicQuery = { memberId: userId };
    const list = `clinics:${JSON.stringify(query)}`;
    const args = pageArgs(list, first, after, isClinicKey, offset);
    const rows = await clinicPage(scope.em, query, args);
    return { page: pageOf(list, args, rows, clinicKey), count: () => countClinics(scope.em, query) };
  }

  /** The clinic with a share code, in any letter case: any signed-in caller may look it up. */
  async byShareCode(scope: Scope, shareCode: string): Promise<ClinicRecord> {
    if (!isAuthenticated(scope.principal)) throw unauthenticated();
    const code = canonicalShareCode(shareCode);
    const clinic = code === null ? null : await clinicByShareCode(scope.em, code);
    if (!clinic) throw notFound('No clinic has this share code');
    return clinic;
  }

  /** The clinic's patient tags, with their ids. */
  patientTags(scope: Scope, clinicId: string): Promise<PatientTagValue[]> {
    return patientTagsLoader(scope).load(clinicId);
  }

  /** A clinic by id for operations under it: 401 anonymous, 400 for a bad id, 404 unknown. */
  async find(scope: Scope, clinicId: string): Promise<ClinicRecord> {
    if (!isAuthenticated(scope.principal)) throw unauthenticated();
    assertClinicId(clinicId);
    const clinic = await clinicLoader(scope).load(clinicId);
    if (!clinic) throw notFound(`Clinic ${clinicId} does not exist`);
    return clinic;
  }

  /** The time zone of a clinic reached through a record the caller was let read there (null: none). */
  async timeZoneOf(scope: Scope, clinicId: string): Promise<string | null> {
    return (await clinicLoader(scope).load(clinicId))?.timezone ?? null;
  }

  /**
   * A clinic reached through a row the caller was allowed to read (its clinician record, an
   * invitation addressed to it): whoever sees the row sees which clinic it belongs to.
   */
  async reached(scope: Scope, clinicId: string): Promise<ClinicRecord> {
    const clinic = await clinicLoader(scope).load(clinicId);
    if (!clinic) throw notFound(`Clinic ${clinicId} does not exist`);
    return clinic;
  }

  private async assertMember(scope: Scope, clinicId: string): Promise<void> {
    const { principal } = scope;
    if (principal.isServer) return;
    const roles = principal.userId === null ? null : await callerRoles(scope, principal.userId).load(clinicId);
    if (!roles) throw forbidden();
  }

  private empty(list: string, args: PageArgs): PagedList<ClinicRecord> {
    return { page: pageOf(list, args, [], clinicKey), count: async () => 0 };
  }
}
