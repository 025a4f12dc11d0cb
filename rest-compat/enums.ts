import { invalid } from '../src/kernel/errors';

/**
 * The GraphQL enums the legacy wire shows, each mapped once between its legacy lowercase strings
 * and its GraphQL values. Requests are translated before they become variables (refusing unknown
 * strings as the legacy API does, listing the legacy values), responses after the operation ran.
 */
export class LegacyEnum {
  private readonly toLegacy: Map<string, string>;

  constructor(private readonly toGraphql: Readonly<Record<string, string>>) {
    this.toLegacy = new Map(Object.entries(toGraphql).map(([legacy, value]) => [value, legacy]));
  }

  /** Legacy strings → GraphQL values; an unknown one is refused naming `field[index]`. */
  values(legacy: readonly string[], field: string): string[] {
    return legacy.map((value, index) => {
      const known = Object.hasOwn(this.toGraphql, value) ? this.toGraphql[value] : undefined;
      if (known !== undefined) return known;
      // Left to the router's NUL check, which names the body field and runs once variables are made.
      if (value.includes('\u0000')) return value;
      // Only a name is repeated in the reason, never other text (it may be anything a client sent).
      const given = /^[A-Za-z_][\w-]{0,63}$/.test(value) ? `, not "${value}"` : '';
      throw invalid(`${field}[${index}] must be one of ${Object.keys(this.toGraphql).join(', ')}${given}`, field);
    });
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
