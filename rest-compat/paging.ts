import { invalid } from '../src/kernel/errors';
import { assertLegacyPaging, PAGE_SIZE } from '../src/kernel/paging';
import { integerParameter } from './query-parameters';
import type { RestRequest, RestRoute } from './route';

/** GraphQL's Int: no list is that long, so a deeper window is past every list's end. */
const DEEPEST_OFFSET = 2 ** 31 - 1;

/**
 * How a list's connection reaches a window's start: it skips the rows before it in SQL (its
 * field takes `offset`), or the route reads them, a connection page at a time, and then only
 * windows ending within its first `deepest` rows are answered.
 */
export type Skipping = { skip: 'sql' } | { skip: 'read'; deepest: number };

const IN_SQL: Skipping = { skip: 'sql' };

/**
 * Paging of a legacy list read through a GraphQL connection at `path`: `check` reads and
 * validates the request's paging parameters, `window` turns them into the rows [start, end) to
 * answer. Where the connection skips in SQL, `variables` asks it for the window from its start
 * (`$offset` and `$first`), so a deep page costs what the first does; the route reads on with
 * `after` only while it holds fewer than the window's rows (a window larger than a connection
 * page). Otherwise the route reads the connection from its start until it holds `end` rows.
 */
export function slicePaging<Checked>(
  path: readonly string[],
  check: (request: RestRequest) => Checked,
  window: (checked: Checked) => { start: number; end: number },
  skipping: Skipping = IN_SQL,
) {
  const rowsToRead = (request: RestRequest) => {
    const { start, end } = window(check(request));
    if (skipping.skip === 'sql') return { start: 0, end: end - start, offset: start };
    if (end > skipping.deepest)
      throw invalid(
        `This list answers its first ${skipping.deepest} rows by page: narrow it with its filters to reach older ones`,
        'page',
      );
    return { start, end, offset: 0 };
  };
  const pages: NonNullable<RestRoute['pages']> = {
    path,
    enough: (rows, request) => rows >= rowsToRead(request).end,
  };
  /** The route's paging variables, checked: call it when the variables are made, so a bad page is refused first. */
  const variables = (request: RestRequest): Record<string, number> => {
    const { end, offset } = rowsToRead(request);
    if (skipping.skip === 'read') return {};
    return { offset: Math.min(offset, DEEPEST_OFFSET), first: Math.min(end, PAGE_SIZE.max) };
  };
  /** The rows of the window among the rows read from the list's start. */
  const windowOf = <T>(read: readonly T[], request: RestRequest): T[] => {
    const { start, end } = rowsToRead(request);
    return read.slice(start, end);
  };
  const rows = <T>(data: Record<string, unknown>, request: RestRequest): T[] => {
    const connection = path.reduce<unknown>((value, key) => (value as Record<string, unknown>)[key], data);
    return windowOf((connection as { nodes: T[] }).nodes, request);
  };
  return { check, pages, rows, windowOf, variables };
}

/** Legacy offset paging (`?page=&size=`, size up to 1000): rows page*size to (page+1)*size, as `slicePaging` reads them. */
export function legacyPaging(path: readonly string[], skipping: Skipping = IN_SQL) {
  return slicePaging(
    path,
    ({ query }: RestRequest) => assertLegacyPaging(integerParameter(query, 'page'), integerParameter(query, 'size')),
    ({ page, size }) => ({ start: page * size, end: (page + 1) * size }),
    skipping,
  );
}
