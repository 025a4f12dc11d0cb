import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../../kernel/errors';
import { checkClinicFields, TIME_ZONES, type ClinicFields } from './clinic-fields';

const TIDEPOOL_TIME_ZONES = path.join(
  __dirname,
  '../../../test/fixtures/tidepool-openapi/reference/clinic/models/clinicTimezone.v1.yaml',
);

const valid: ClinicFields = { name: 'Clinic', preferredBgUnits: 'MG_DL' };

/** The field a refusal names. */
function refusedField(fields: Record<string, unknown>): unknown {
  try {
    checkClinicFields({ ...valid, ...fields } as unknown as ClinicFields);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).details.field;
  }
  return undefined;
}

describe('clinic time zones', () => {
  it('include every name of Tidepool’s clinic time zone list, legacy aliases too', () => {
    const names = [...fs.readFileSync(TIDEPOOL_TIME_ZONES, 'utf8').matchAll(/^\s+- (\S+)$/gm)].map((match) => match[1]);
    expect(names.length).toBeGreaterThan(500);
    expect(names.filter((name) => !TIME_ZONES.has(name))).toEqual([]);
    for (const alias of ['UTC', 'Etc/UTC', 'US/Eastern', 'Asia/Calcutta', 'GMT'])
      expect(TIME_ZONES.has(alias)).toBe(true);
  });

  it('leave out the placeholder and anything that is not a name', () => {
    for (const name of ['Factory', 'us/eastern', '+01:00', 'EST ', '']) expect(TIME_ZONES.has(name)).toBe(false);
  });
});

describe('checkClinicFields', () => {
  it('keeps what is given and sets the rest to null', () => {
    expect(checkClinicFields(valid)).toEqual({
      name: 'Clinic',
      address: null,
      city: null,
      postalCode: null,
      state: null,
      country: null,
      phoneNumbers: [],
      clinicType: null,
      clinicSize: null,
      website: null,
      preferredBgUnits: 'MG_DL',
      timezone: null,
      suppressedNotifications: null,
    });
    expect(
      checkClinicFields({
        ...valid,
        phoneNumbers: [{ number: '1' }, { type: 'fax', number: '1' }],
        website: 'http://clinic.example/path?q=1',
        suppressedNotifications: {},
      }),
    ).toMatchObject({ phoneNumbers: [{ number: '1' }, { type: 'fax', number: '1' }], suppressedNotifications: {} });
  });

  it.each([
    [{ name: '' }, 'name'],
    [{ name: ' \t' }, 'name'],
    [{ name: 'x'.repeat(1001) }, 'name'],
    [{ preferredBgUnits: null }, 'preferredBgUnits'],
    [{ preferredBgUnits: 'mg/dL' }, 'preferredBgUnits'],
    [{ clinicType: 'HOSPITAL' }, 'clinicType'],
    [{ clinicSize: '0-249' }, 'clinicSize'],
    [{ website: 'clinic.example' }, 'website'],
    [{ website: 'ftp://clinic.example' }, 'website'],
    [{ website: 'javascript:alert(1)' }, 'website'],
    [{ phoneNumbers: [] }, 'phoneNumbers'],
    [{ phoneNumbers: Array.from({ length: 11 }, (_, i) => ({ number: String(i) })) }, 'phoneNumbers'],
    [
      {
        phoneNumbers: [
          { type: 'main', number: '1' },
          { type: 'main', number: '1' },
        ],
      },
      'phoneNumbers',
    ],
    [{ phoneNumbers: [{ number: '' }] }, 'phoneNumbers[0].number'],
    [{ timezone: 'Europe/Nowhere' }, 'timezone'],
    [{ country: '' }, 'country'],
  ] as [Record<string, unknown>, string][])('refuses %j naming %s', (fields, field) => {
    expect(refusedField(fields)).toBe(field);
  });
});
