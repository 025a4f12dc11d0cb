import { assertLegacyPaging } from '../src/kernel/paging';
import { integerParameter } from './binary';
import type { RestRequest, RestRoute } from './route';

/**
 * Paging of a legacy list read through a GraphQL connection at `path`: `check` reads and
 * validates the request's paging parameters, `window` turns them into the rows [start, end) to
 * answer; the route fetches connection pages until it holds `end` rows.
 */
export function slicePaging<Checked>(
  path: readonly string[],
  check: (request: RestRequest) => Checked,
  window: (checked: Checked) => { start: number; end: number },
) {
  const pages: NonNullable<RestRoute['pages']> = {
    path,
    enough: (rows, request) => rows >= window(check(request)).end,
  };
  const rows = <T>(data: Record<string, unknown>, request: RestRequest): T[] => {
    const { start, end } = window(check(request));
    const connection = path.reduce<unknown>((value, key) => (value as Record<string, unknown>)[key], data);
    return (connection as { nodes: T[] }).nodes.slice(start, end);
  };
  return { check, pages, rows };
}

/**
 * Legacy offset paging (`?page=&size=`, size up to 1000) over a connection (pages of at most
 * 100): the router reads the connection at `path` until it holds the rows of the asked page, and
 * `rows` cuts that page out. Checked when the variables are made, so a bad page is refused first.
 */
export function legacyPaging(path: readonly string[]) {
  return slicePaging(
    path,
    ({ query }: RestRequest) => assertLegacyPaging(integerParameter(query, 'page'), integerParameter(query, 'size')),
    ({ page, size }) => ({ start: page * size, end: (page + 1) * size }),
  );
}
