/**
 * A strict RFC 4180 reader for the suites that read CSV answers back: quoted fields (doubled
 * quotes, line breaks inside), CRLF between records. Anything else (a bare quote in an unquoted
 * field, text after a closing quote, no CRLF at the end) throws, so a malformed file fails its test.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let at = 0;
  while (at < text.length) {
    let field = '';
    if (text[at] === '"') {
      at += 1;
      for (;;) {
        const quote = text.indexOf('"', at);
        if (quote < 0) throw new Error('CSV: a quoted field is not closed');
        field += text.slice(at, quote);
        at = quote + 1;
        if (text[at] !== '"') break;
        field += '"';
        at += 1;
      }
    } else {
      const end = text.slice(at).search(/,|\r\n/);
      field = end < 0 ? text.slice(at) : text.slice(at, at + end);
      if (field.includes('"')) throw new Error(`CSV: a quote in an unquoted field: ${field}`);
      at += field.length;
    }
    record.push(field);
    if (text[at] === ',') at += 1;
    else if (text.startsWith('\r\n', at)) {
      records.push(record);
      record = [];
      at += 2;
    } else throw new Error(`CSV: expected a comma or CRLF at ${at}`);
  }
  if (record.length) throw new Error('CSV: the last record does not end with CRLF');
  return records;
}

/** The records of a CSV as objects keyed by the header row. */
export function csvObjects(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  return rows.map((row) => Object.fromEntries(header!.map((name, index) => [name, row[index]!])));
}
