import isURL from 'validator/lib/isURL';
import { getAllTimezones } from 'countries-and-timezones';
import { invalid } from '../../kernel/errors';
import { truncate } from '../../kernel/validation';
import type { PhoneNumber } from './clinic.entity';

/** The kinds of clinic; the REST layer shows them as Tidepool's `provider_practice`, ... */
export const CLINIC_TYPES = [
  'PROVIDER_PRACTICE',
  'HEALTHCARE_SYSTEM',
  'VETERINARY_CLINIC',
  'OTHER',
  'RESEARCHER',
] as const;
export type ClinicType = (typeof CLINIC_TYPES)[number];

/** Patient counts of a clinic; on the REST wire `0-249`, `250-499`, `500-999`, `1000+`. */
export const CLINIC_SIZES = ['SIZE_0_249', 'SIZE_250_499', 'SIZE_500_999', 'SIZE_1000_PLUS'] as const;
export type ClinicSize = (typeof CLINIC_SIZES)[number];

/** The glucose unit a clinic reads; on the REST wire `mg/dL` and `mmol/L`. */
export const BG_UNITS = ['MG_DL', 'MMOL_L'] as const;
export type BgUnits = (typeof BG_UNITS)[number];

/**
 * IANA time zone names, legacy aliases included (`UTC`, `Etc/UTC`, `US/Eastern`), from the
 * countries-and-timezones package, which tracks the tz database's zones and its `backward`
 * links. The runtime's Intl accepts aliases but cannot list them, and also takes offsets and
 * any letter case. `Factory` is the database's placeholder for "not configured", not a place.
 */
export const TIME_ZONES: ReadonlySet<string> = new Set(
  Object.keys(getAllTimezones({ deprecated: true })).filter((name) => name !== 'Factory'),
);

/** The longest text a clinic field keeps: far beyond any address or name, a bound on what one request stores. */
export const MAX_TEXT_LENGTH = 1000;
export const MAX_PHONE_NUMBERS = 10;

/** A clinic's own fields, as created and as replaced by an update. */
export interface ClinicFields {
  name: string;
  address?: string | null;
  city?: string | null;
  postalCode?: string | null;
  state?: string | null;
  country?: string | null;
  phoneNumbers?: { type?: string | null; number: string }[] | null;
  clinicType?: ClinicType | null;
  clinicSize?: ClinicSize | null;
  website?: string | null;
  preferredBgUnits: BgUnits;
  timezone?: string | null;
  suppressedNotifications?: { patientClinicInvitation?: boolean | null } | null;
}

/** The fields as stored: every optional one present, null when not given. */
export interface CheckedClinicFields {
  name: string;
  address: string | null;
  city: string | null;
  postalCode: string | null;
  state: string | null;
  country: string | null;
  phoneNumbers: PhoneNumber[];
  clinicType: ClinicType | null;
  clinicSize: ClinicSize | null;
  website: string | null;
  preferredBgUnits: BgUnits;
  timezone: string | null;
  suppressedNotifications: { patientClinicInvitation?: boolean } | null;
}

export function text(value: string | null | undefined, field: string, required = false): string | null {
  if (value === null || value === undefined) {
    if (required) throw invalid(`${field} is required`, field);
    return null;
  }
  if (value.trim() === '') throw invalid(`${field} must not be empty`, field);
  if (value.length > MAX_TEXT_LENGTH) throw invalid(`${field} may be at most ${MAX_TEXT_LENGTH} characters`, field);
  return value;
}

function oneOf<T extends string>(value: T | null | undefined, allowed: readonly T[], field: string): T | null {
  if (value === null || value === undefined) return null;
  if (!allowed.includes(value)) throw invalid(`${field} must be one of ${allowed.join(', ')}`, field);
  return value;
}

/** Non-empty when given, no two alike (Tidepool's uniqueItems), each with a number. */
function phoneNumbers(values: ClinicFields['phoneNumbers']): PhoneNumber[] {
  if (values === null || values === undefined) return [];
  if (values.length === 0) throw invalid('phoneNumbers must hold at least one phone number when given', 'phoneNumbers');
  if (values.length > MAX_PHONE_NUMBERS)
    throw invalid(`phoneNumbers may hold at most ${MAX_PHONE_NUMBERS} phone numbers`, 'phoneNumbers');
  const seen = new Set<string>();
  return values.map((phone, index) => {
    const number = text(phone.number, `phoneNumbers[${index}].number`, true)!;
    const type = text(phone.type, `phoneNumbers[${index}].type`);
    const key = JSON.stringify([type, number]);
    if (seen.has(key)) throw invalid(`phoneNumbers[${index}] repeats an earlier phone number`, 'phoneNumbers');
    seen.add(key);
    return type === null ? { number } : { type, number };
  });
}

function website(value: string | null | undefined): string | null {
  const checked = text(value, 'website');
  if (checked !== null && !isURL(checked, { require_protocol: true, protocols: ['http', 'https'] }))
    throw invalid(`website "${truncate(checked)}" is not a URL such as https://clinic.example`, 'website');
  return checked;
}

export function assertTimezone(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (!TIME_ZONES.has(value))
    throw invalid(
      `timezone "${truncate(value)}" is not an IANA time zone name such as America/New_York or UTC`,
      'timezone',
    );
  return value;
}

/** Every field checked, each refusal naming its field; what is not given is null. */
export function checkClinicFields(fields: ClinicFields): CheckedClinicFields {
  const notifications = fields.suppressedNotifications;
  return {
    name: text(fields.name, 'name', true)!,
    address: text(fields.address, 'address'),
    city: text(fields.city, 'city'),
    postalCode: text(fields.postalCode, 'postalCode'),
    state: text(fields.state, 'state'),
    country: text(fields.country, 'country'),
    phoneNumbers: phoneNumbers(fields.phoneNumbers),
    clinicType: oneOf(fields.clinicType, CLINIC_TYPES, 'clinicType'),
    clinicSize: oneOf(fields.clinicSize, CLINIC_SIZES, 'clinicSize'),
    website: website(fields.website),
    preferredBgUnits: oneOf(fields.preferredBgUnits, BG_UNITS, 'preferredBgUnits') ?? missing('preferredBgUnits'),
    timezone: assertTimezone(fields.timezone),
    suppressedNotifications:
      notifications === null || notifications === undefined
        ? null
        : notifications.patientClinicInvitation === null || notifications.patientClinicInvitation === undefined
          ? {}
          : { patientClinicInvitation: notifications.patientClinicInvitation },
  };
}

function missing(field: string): never {
  throw invalid(`${field} is required`, field);
}
