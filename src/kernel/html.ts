/**
 * Escapes text for HTML bodies and quoted attribute values (every attribute Islet writes is
 * quoted, so `=` and backticks need no escape, and links keep their readable query strings).
 */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** A tagged template that escapes every interpolated value unless it is already `Html`. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  return new Html(
    strings.reduce((out, part, index) => {
      if (index === 0) return part;
      const value = values[index - 1];
      const text = Array.isArray(value)
        ? value.map((item) => (item instanceof Html ? item.value : escapeHtml(item))).join('')
        : value instanceof Html
          ? value.value
          : value === undefined || value === null || value === false
            ? ''
            : escapeHtml(value);
      return out + text + part;
    }, ''),
  );
}
