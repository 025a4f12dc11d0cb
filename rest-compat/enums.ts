import { invalid } from '../src/kernel/errors';
import { SummaryPeriodValue } from '../src/domains/glucose/glucose-summary.types';

/**
 * The GraphQL enums the legacy wire shows, each mapped once between its legacy lowercase strings
 * and its GraphQL values. Requests are translated before they become variables (refusing unknown
 * strings as the legacy API does, listing the legacy values), responses after the operation ran.
 */
export class LegacyEnum {
  private readonly toLegacy: Map<string, string>;

  /** From a GraphQL enum whose values are the legacy strings (`ONE_DAY = '1d'`). */
  static ofValues(graphqlEnum: Readonly<Record<string, string>>): LegacyEnum {
    return new LegacyEnum(Object.fromEntries(Object.entries(graphqlEnum).map(([name, legacy]) => [legacy, name])));
  }

  constructor(private readonly toGraphql: Readonly<Record<string, string>>) {
    this.toLegacy = new Map(Object.entries(toGraphql).map(([legacy, value]) => [value, legacy]));
  }

  /** Legacy strings → GraphQL values; an unknown one is refused naming `field[index]`. */
  values(legacy: readonly string[], field: string): string[] {
    return legacy.map((value, index) => this.graphqlValue(value, `${field}[${index}]`, field));
  }

  /** One legacy string → its GraphQL value; anything else is refused naming `field`. */
  value(legacy: unknown, field: string): string {
    if (typeof legacy !== 'string')
      throw invalid(`${field} must be one of ${Object.keys(this.toGraphql).join(', ')}`, field);
    return this.graphqlValue(legacy, field, field);
  }

  private graphqlValue(value: string, label: string, field: string): string {
    const known = Object.hasOwn(this.toGraphql, value) ? this.toGraphql[value] : undefined;
    if (known !== undefined) return known;
    // Left to the router's NUL check, which names the body field and runs once variables are made.
    if (value.includes('\u0000')) return value;
    // Only a name is repeated in the reason, never other text (it may be anything a client sent).
    const given = /^[A-Za-z_][\w-]{0,63}$/.test(value) ? `, not "${value}"` : '';
    throw invalid(`${label} must be one of ${Object.keys(this.toGraphql).join(', ')}${given}`, field);
  }

  /** The legacy strings, as the OpenAPI description lists them. */
  get legacyValues(): string[] {
    return Object.keys(this.toGraphql);
  }

  /** A GraphQL value → its legacy string. */
  legacy(value: string): string {
    return this.toLegacy.get(value) ?? value;
  }
}

export const PERMISSION_NAME = new LegacyEnum({
  root: 'ROOT',
  custodian: 'CUSTODIAN',
  view: 'VIEW',
  upload: 'UPLOAD',
  note: 'NOTE',
});

export const BLOB_STATUS = new LegacyEnum({ created: 'CREATED', available: 'AVAILABLE' });

export const CLINIC_TYPE = new LegacyEnum({
  provider_practice: 'PROVIDER_PRACTICE',
  healthcare_system: 'HEALTHCARE_SYSTEM',
  veterinary_clinic: 'VETERINARY_CLINIC',
  other: 'OTHER',
  researcher: 'RESEARCHER',
});

export const CLINIC_SIZE = new LegacyEnum({
  '0-249': 'SIZE_0_249',
  '250-499': 'SIZE_250_499',
  '500-999': 'SIZE_500_999',
  '1000+': 'SIZE_1000_PLUS',
});

export const BG_UNITS = new LegacyEnum({ 'mg/dL': 'MG_DL', 'mmol/L': 'MMOL_L' });

/** Clinician roles are the same strings on both sides; listed so the REST layer refuses others as it does enums. */
export const CLINICIAN_ROLE = new LegacyEnum({
  CLINIC_ADMIN: 'CLINIC_ADMIN',
  CLINIC_MEMBER: 'CLINIC_MEMBER',
  PRESCRIBER: 'PRESCRIBER',
});

/** Summary periods: Tidepool's `1d` … `30d` keys and GraphQL's `ONE_DAY` … `THIRTY_DAYS`. */
export const SUMMARY_PERIOD = LegacyEnum.ofValues(SummaryPeriodValue);
