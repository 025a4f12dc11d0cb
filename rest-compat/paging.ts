import { assertLegacyPaging } from '../src/kernel/paging';
import { integerParameter } from './binary';
import type { RestRequest, RestRoute } from './route';

/**
 * Legacy offset paging (`?page=&size=`, size up to 1000) over a connection (pages of at most
 * 100): the router reads the connection at `path` until it holds the rows of the asked page, and
 * `rows` cuts that page out. Checked when the variables are made, so a bad page is refused first.
 */
export function legacyPaging(path: readonly string[]) {
  const pageOf = ({ query }: RestRequest) =>
    assertLegacyPaging(integerParameter(query, 'page'), integerParameter(query, 'size'));
  const pages: NonNullable<RestRoute['pages']> = {
    path,
    enough: (rows, request) => {
      const { page, size } = pageOf(request);
      return rows >= (page + 1) * size;
    },
  };
  const rows = <T>(data: Record<string, unknown>, request: RestRequest): T[] => {
    const { page, size } = pageOf(request);
    const connection = path.reduce<unknown>((value, key) => (value as Record<string, unknown>)[key], data);
    return (connection as { nodes: T[] }).nodes.slice(page * size, (page + 1) * size);
  };
  return { check: pageOf, pages, rows };
}
