import { conflict, invalid, notFound } from '../../kernel/errors';
import { hexId } from '../../kernel/ids';
import type { Scope } from '../../kernel/scope';
import { assertObjectId } from './clinic-ids';
import type { PatientTagValue } from './clinic.entity';
import { clinicLoader, patientTagsLoader } from './clinics.loaders';
import type { ClinicsService } from './clinics.service';
import { assertClinicAccess } from './membership';
import { assertTagName, MAX_PATIENT_TAGS } from './patient-fields';
import { countTags, deleteTag, insertTag, lockClinic, renameTag, updateClinic } from './clinics.repository';
import { isUniqueViolation, removeTagFromPatients } from './patients.repository';

/**
 * A clinic's patient tags (Tidepool's patient_tags): MEMBERs and ADMINs create and rename them,
 * ADMINs delete them. Names are unique within a clinic ignoring letter case (a unique index holds
 * it); a clinic has at most 50.
 */
export class PatientTagsService {
  constructor(private readonly clinics: ClinicsService) {}

  async create(scope: Scope, clinicId: string, name: string): Promise<PatientTagValue> {
    await this.clinics.find(scope, clinicId);
    await assertClinicAccess(scope, clinicId, 'read');
    const tag = { id: hexId(24), name: assertTagName(name) };
    await scope.em.transactional(async (tx) => {
      // The clinic row is the lock that keeps two creations from both passing the count.
      await lockClinic(tx, clinicId);
      if ((await countTags(tx, clinicId)) >= MAX_PATIENT_TAGS)
        throw conflict(`A clinic has at most ${MAX_PATIENT_TAGS} patient tags; delete one first`);
      await uniqueName(insertTag(tx, clinicId, tag));
    });
    patientTagsLoader(scope).clear(clinicId);
    return tag;
  }

  async rename(scope: Scope, clinicId: string, tagId: string, name: string): Promise<PatientTagValue> {
    await this.clinics.find(scope, clinicId);
    assertObjectId(tagId, 'patientTagId');
    await assertClinicAccess(scope, clinicId, 'read');
    const tag = { id: tagId, name: assertTagName(name) };
    if (!(await uniqueName(renameTag(scope.em, clinicId, tag))))
      throw notFound(`Clinic ${clinicId} has no patient tag ${tagId}`);
    patientTagsLoader(scope).clear(clinicId);
    return tag;
  }

  /** Deletes a tag, takes it off every patient and records it as the clinic's lastDeletedPatientTag. */
  async remove(scope: Scope, clinicId: string, tagId: string): Promise<PatientTagValue> {
    await this.clinics.find(scope, clinicId);
    assertObjectId(tagId, 'patientTagId');
    await assertClinicAccess(scope, clinicId, 'admin');
    const deleted = await scope.em.transactional(async (tx) => {
      const tag = await deleteTag(tx, clinicId, tagId);
      if (!tag) throw notFound(`Clinic ${clinicId} has no patient tag ${tagId}`);
      await removeTagFromPatients(tx, clinicId, tagId);
      await updateClinic(tx, clinicId, { lastDeletedPatientTag: { id: tag.id, name: tag.name } });
      return tag;
    });
    patientTagsLoader(scope).clear(clinicId);
    clinicLoader(scope).clear(clinicId);
    return deleted;
  }

  /** Throws INVALID naming `field` unless every id is a tag of the clinic. */
  async assertTagsOf(scope: Scope, clinicId: string, tagIds: readonly string[], field = 'tags'): Promise<void> {
    if (!tagIds.length) return;
    const known = new Set((await patientTagsLoader(scope).load(clinicId)).map((tag) => tag.id));
    const unknown = tagIds.findIndex((id) => !known.has(id));
    if (unknown >= 0) throw invalid(`${field}[${unknown}] is not a patient tag of clinic ${clinicId}`, field);
  }
}

/** A name taken (ignoring case) is a CONFLICT, caught from the unique index. */
async function uniqueName<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('The clinic already has a patient tag of that name');
    throw error;
  }
}
