import { Account } from './accounts';
import { bearer, json, send } from './outcomes';

const FIVE_MINUTES = 5 * 60_000;
const DAY = 24 * 60 * 60_000;
/** Each glucose upload is a day of 5-minute CGM readings. */
export const READINGS_PER_UPLOAD = 288;
/**
 * Patients' readings start this far back and move forward one day per upload: every upload
 * then brings newer data and changes the summary, and they stay within the two years back that
 * summaries count.
 */
const HISTORY = 700 * DAY;

/** A clinic patient with a continuous dataset; its readings occupy consecutive 5-minute slots. */
export interface Patient {
  userId: string;
  datasetId: string;
  /** The next free slot: the first reading of the next upload. */
  nextSlot: number;
}

/** What the workload acts on: accounts with content, and a clinic whose patients upload glucose readings. */
export interface World {
  uploaders: Account[];
  /** The clinic's admin: uploads for its (custodial) patients, lists them, runs TIDE reports. */
  clinician: Account;
  clinicId: string;
  tagId: string;
  patients: Patient[];
  /** Epoch milliseconds of slot 0. */
  glucoseStart: number;
}

export const slotTime = (world: World, slot: number) => world.glucoseStart + slot * FIVE_MINUTES;

/** Slots whose readings lie in the past (a day ahead would still count, but nothing beyond). */
export const slotsAvailable = (world: World, patient: Patient) =>
  slotTime(world, patient.nextSlot + READINGS_PER_UPLOAD) < Date.now();

/** A CGM reading as a monitor sends it: a slow wave with some noise, in mg/dL. */
export function reading(world: World, slot: number) {
  return {
    type: 'cbg',
    time: new Date(slotTime(world, slot)).toISOString(),
    value: Math.round(140 + 70 * Math.sin(slot / 40) + ((slot * 37) % 23)),
    units: 'mg/dL',
    sampleInterval: 300000,
    deviceId: 'soak-cgm',
  };
}

export async function createWorld(baseUrl: string, uploaderCount: number, patientCount: number): Promise<World> {
  const uploaders = await Promise.all(
    Array.from({ length: uploaderCount }, (_, index) => Account.signUp(baseUrl, `soak-uploader-${index}`)),
  );
  const clinician = await Account.signUp(baseUrl, 'soak-clinician');
  const headers = { ...bearer(await clinician.accessToken()), 'content-type': 'application/json' };
  const post = async <T>(path: string, body: unknown, status: number) =>
    json<T>(await send(`${baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) }, status));
  const clinic = await post<{ id: string }>('/v1/clinics', { name: 'Soak Clinic', preferredBgUnits: 'mg/dL' }, 200);
  const tag = await post<{ id: string }>(`/v1/clinics/${clinic.id}/patient_tags`, { name: 'Soak' }, 200);
  const patients: Patient[] = [];
  for (let index = 0; index < patientCount; index += 1) {
    const patient = await post<{ id: string }>(
      `/v1/clinics/${clinic.id}/patients`,
      { fullName: `Soak Patient ${index}`, birthDate: '2001-02-03', tags: [tag.id] },
      200,
    );
    const dataset = await post<{ data: { id: string } }>(
      `/v1/users/${patient.id}/datasets`,
      { dataSetType: 'continuous' },
      201,
    );
    patients.push({ userId: patient.id, datasetId: dataset.data.id, nextSlot: 0 });
  }
  const glucoseStart = Math.floor((Date.now() - HISTORY) / FIVE_MINUTES) * FIVE_MINUTES;
  return { uploaders, clinician, clinicId: clinic.id, tagId: tag.id, patients, glucoseStart };
}
