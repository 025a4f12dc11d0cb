/** `?, ?, ?` for an IN list of `count` values (the driver expands no arrays). */
export function placeholders(count: number): string {
  return count > 0 ? '?, '.repeat(count - 1) + '?' : '';
}
