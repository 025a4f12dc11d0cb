import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AS_CLIENT,
  AS_SERVER,
  asUser,
  contentOf,
  outcomeOf,
  startDomainWorld,
  type DomainWorld,
} from '../../../../test/support/domain-services';
import { ANONYMOUS, type Principal } from '../../../kernel/principal';
import { DEFAULT_CATEGORIES } from './categories';
import { MAX_DATA_SOURCES } from './data-sources';
import type { TideRequest } from './parameters';
import type { TideService } from './tide.service';

let world: DomainWorld;
let tide: TideService;

beforeAll(async () => {
  world = await startDomainWorld();
  tide = world.services.tide;
});
afterAll(() => world?.stop());

const as = (principal: Principal) => world.scope(principal);
const FIVE_MINUTES = 5 * 60_000;
const DEXCOM = { dataSourceId: 'a'.repeat(24), providerName: 'dexcom', state: 'connected' };

/** A clinic (created by its admin) with a member, a prescriber and a tag, and an account that is nobody's patient. */
async function clinicOf() {
  const { clinic, admin, member, prescriber, outsider } = await world.staffedClinic();
  const tag = await world.services.patientTags.create(as(asUser(admin)), clinic.id, 'Watch');
  const request: TideRequest = { period: '14d', tags: [tag.id], lastDataCutoff: new Date(Date.now() - 86_400_000) };
  return { clinicId: clinic.id, tagId: tag.id, request, admin, member, prescriber, outsider };
}
/** A patient of the clinic, with the tag, who has never sent data. */
async function taggedPatient(clinicId: string, tagId: string) {
  const userId = await world.account();
  await world.services.patients.add(as(AS_SERVER), clinicId, userId, { permissions: ['view'], tags: [tagId] });
  return userId;
}

describe('who may ask for the TIDE report', () => {
  it('its members, admins and servers; a clinic without such patients answers empty categories', async () => {
    const { clinicId, request, admin, member } = await clinicOf();
    for (const caller of [asUser(member), asUser(admin), AS_SERVER]) {
      const report = await tide.report(as(caller), clinicId, request);
      expect(report.categories).toEqual(DEFAULT_CATEGORIES.map((category) => ({ category, rows: [] })));
      expect(report.noData).toEqual([]);
      expect(report.parameters).toMatchObject({ period: '14d', excludeNoData: false });
    }
  });

  it('not a prescriber alone, an outsider, nor a client without an account; anonymous must log in', async () => {
    const { clinicId, request, prescriber, outsider } = await clinicOf();
    for (const caller of [asUser(prescriber), asUser(outsider), AS_CLIENT])
      expect(await outcomeOf(tide.report(as(caller), clinicId, request))).toBe('FORBIDDEN');
    expect(await outcomeOf(tide.report(as(ANONYMOUS), clinicId, request))).toBe('UNAUTHENTICATED');
    expect(await outcomeOf(tide.report(as(AS_SERVER), 'f'.repeat(24), request))).toBe('NOT_FOUND');
  });
});

describe('the report’s parameters', () => {
  it('need a period of 1d, 7d, 14d or 30d', async () => {
    const { clinicId, request, member } = await clinicOf();
    for (const period of [null, '', '2d', '14D'])
      await expect(tide.report(as(asUser(member)), clinicId, { ...request, period })).rejects.toMatchObject({
        code: 'INVALID',
        details: { field: 'period' },
      });
    for (const period of ['1d', '7d', '30d'])
      expect((await tide.report(as(asUser(member)), clinicId, { ...request, period })).parameters.period).toBe(period);
  });

  it('cover the whole clinic without tags; ids that cannot be one are dropped, repeats once, none readable refused', async () => {
    const { clinicId, tagId, request, member } = await clinicOf();
    for (const tags of [null, []])
      expect((await tide.report(as(asUser(member)), clinicId, { ...request, tags })).parameters.tags).toEqual([]);
    await expect(
      tide.report(as(asUser(member)), clinicId, { ...request, tags: ['not-a-tag'], tagsField: 'tagIds' }),
    ).rejects.toMatchObject({ code: 'INVALID', details: { field: 'tagIds' } });
    const report = await tide.report(as(asUser(member)), clinicId, { ...request, tags: [tagId, 'nope', tagId] });
    expect(report.parameters.tags).toEqual([tagId]);
  });

  it('need a last-data cutoff: a date-time, not Go’s zero time', async () => {
    const { clinicId, request, member } = await clinicOf();
    for (const lastDataCutoff of [null, '', 'yesterday', '0001-01-01T00:00:00Z', new Date(Number.NaN)])
      await expect(tide.report(as(asUser(member)), clinicId, { ...request, lastDataCutoff })).rejects.toMatchObject({
        code: 'INVALID',
        details: { field: 'lastDataCutoff' },
      });
    const report = await tide.report(as(asUser(member)), clinicId, {
      ...request,
      lastDataCutoff: '2026-01-02T03:04:05Z',
    });
    expect(report.parameters.lastDataCutoff.toISOString()).toBe('2026-01-02T03:04:05.000Z');
  });

  it('ask the named categories in the order given, unknown names ignored', async () => {
    const { clinicId, request, member } = await clinicOf();
    const report = await tide.report(as(asUser(member)), clinicId, {
      ...request,
      categories: ['timeInAnyHighPercent', 'bogus', 'timeInVeryLowPercent', 'timeInAnyHighPercent'],
    });
    expect(report.categories.map((category) => category.category)).toEqual([
      'timeInAnyHighPercent',
      'timeInVeryLowPercent',
    ]);
  });
});

describe('patients without data', () => {
  it('a tagged patient who never sent data is listed as without data, unless excluded; others not at all', async () => {
    const { clinicId, tagId, request, member } = await clinicOf();
    const tagged = await taggedPatient(clinicId, tagId);
    await world.services.patients.add(as(AS_SERVER), clinicId, await world.account(), { permissions: ['view'] });
    const report = await tide.report(as(asUser(member)), clinicId, request);
    expect(report.noData?.map((row) => row.patient.userId)).toEqual([tagged]);
    expect(report.categories.every((category) => category.rows.length === 0)).toBe(true);
    expect((await tide.report(as(asUser(member)), clinicId, { ...request, excludeNoData: true })).noData).toBeNull();
  });
});

describe('patients with data', () => {
  /** `mgdl` every five minutes over the last `hours`, uploaded by the patient and summarised. */
  async function sends(userId: string, mgdl: number, hours: number) {
    const glucose = world.services.glucose;
    const dataset = await glucose.createDataset(as(asUser(userId)), userId, { dataSetType: 'continuous' });
    const end = Math.floor(Date.now() / FIVE_MINUTES) * FIVE_MINUTES - FIVE_MINUTES;
    const records = Array.from({ length: hours * 12 }, (_, index) => ({
      type: 'cbg',
      time: new Date(end - index * FIVE_MINUTES).toISOString(),
      value: mgdl,
      units: 'mg/dL',
      sampleInterval: FIVE_MINUTES,
    }));
    await glucose.addData(as(asUser(userId)), dataset.id, contentOf(JSON.stringify(records), 'application/json'));
    await world.services.summaryUpdater.idle();
  }

  it('over a day: a patient always very low is in the first category, one in range is not, and neither lacks data', async () => {
    const { clinicId, tagId, request, member } = await clinicOf();
    const [low, steady] = [await taggedPatient(clinicId, tagId), await taggedPatient(clinicId, tagId)];
    await sends(low, 45, 24);
    await sends(steady, 120, 24);
    const report = await tide.report(as(asUser(member)), clinicId, { ...request, period: '1d' });
    const placed = (userId: string) =>
      report.categories.find((category) => category.rows.some((row) => row.patient.userId === userId))?.category;
    expect(placed(low)).toBe('timeInVeryLowPercent');
    expect(placed(steady)).not.toBe('timeInVeryLowPercent');
    expect(report.noData).toEqual([]);
  });
});

describe('data sources', () => {
  it('a server reports them for a patient; every clinic’s record of it and the report show them', async () => {
    const { clinicId, tagId, request, member } = await clinicOf();
    const patient = await taggedPatient(clinicId, tagId);
    const other = await clinicOf();
    await world.services.patients.add(as(AS_SERVER), other.clinicId, patient, { permissions: ['view'] });
    const stored = await tide.updateDataSources(as(AS_SERVER), patient, [
      { ...DEXCOM, latestDataTime: '2026-11-01T10:00:00+02:00', ignored: true },
    ]);
    expect(stored).toEqual([{ ...DEXCOM, latestDataTime: '2026-11-01T08:00:00.000Z' }]);
    expect(await tide.dataSources(as(AS_SERVER), other.clinicId, patient)).toEqual(stored);
    expect(await tide.userDataSources(as(AS_SERVER), patient)).toEqual([
      { id: DEXCOM.dataSourceId, providerName: 'dexcom', state: 'connected' },
    ]);
    const report = await tide.report(as(asUser(member)), clinicId, request);
    expect(report.noData?.map((row) => row.dataSources)).toEqual([stored]);
  });

  it('are reported by servers only, for a user who is some clinic’s patient', async () => {
    const { clinicId, tagId, admin, outsider } = await clinicOf();
    const patient = await taggedPatient(clinicId, tagId);
    for (const caller of [asUser(patient), asUser(admin)])
      expect(await outcomeOf(tide.updateDataSources(as(caller), patient, [DEXCOM]))).toBe('FORBIDDEN');
    expect(await outcomeOf(tide.updateDataSources(as(ANONYMOUS), patient, [DEXCOM]))).toBe('UNAUTHENTICATED');
    expect(await outcomeOf(tide.updateDataSources(as(AS_SERVER), outsider, [DEXCOM]))).toBe('NOT_FOUND');
    expect(await tide.dataSources(as(AS_SERVER), clinicId, patient)).toBeNull();
  });

  it('are checked: a list of at most MAX_DATA_SOURCES, each with a known state and a provider', async () => {
    const { clinicId, tagId } = await clinicOf();
    const patient = await taggedPatient(clinicId, tagId);
    for (const [body, field] of [
      [DEXCOM, 'body'],
      [Array.from({ length: MAX_DATA_SOURCES + 1 }, () => DEXCOM), 'body'],
      [[{ ...DEXCOM, state: 'asleep' }], '[0].state'],
      [[{ ...DEXCOM, providerName: '' }], '[0].providerName'],
      [[{ ...DEXCOM, dataSourceId: 'short' }], '[0].dataSourceId'],
      [[{ ...DEXCOM, modifiedTime: 'noon' }], '[0].modifiedTime'],
    ] as const)
      await expect(tide.updateDataSources(as(AS_SERVER), patient, body)).rejects.toMatchObject({
        code: 'INVALID',
        details: { field },
      });
    expect(await tide.updateDataSources(as(AS_SERVER), patient, [])).toEqual([]);
    const full = Array.from({ length: MAX_DATA_SOURCES }, () => DEXCOM);
    expect(await tide.updateDataSources(as(AS_SERVER), patient, full)).toHaveLength(MAX_DATA_SOURCES);
  });
});
