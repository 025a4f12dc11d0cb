import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { productionFiles, ROOT as root } from './production-files';

/**
 * One way to the database (docs/architecture.md): production code runs hand-written SQL only
 * through the SQL runner of src/infra/database/sql-runner.ts (`sqlOf(em)`), whose statements join
 * the entity manager's transaction and are counted for the request. The ORM's connection, its
 * `execute`, and the driver-level helpers are for src/infra/database alone.
 */

/** Where the other ways are allowed: the runner's own layer. */
const RUNNER_LAYER = 'src/infra/database/';

/** Folders still being moved to the runner; empty this list as each is done. */
const BEING_CONVERTED: readonly string[] = [];

/** `em.execute`, `tx.execute`, `getConnection()` (its `execute`, `getClient`, `stream`…), the driver-level helpers. */
const OTHER_WAY =
  /\.execute\s*[<(]|\bexecuteBound\b|\bexecutePrepared\b|\bgetConnection\s*\(|\bgetNativeClient\b|\bgetKysely\b/;

/** `file:line` of every line of `file` that runs SQL another way. */
function otherWaysIn(file: string): string[] {
  return fs
    .readFileSync(path.join(root, file), 'utf8')
    .split('\n')
    .flatMap((line, index) => (OTHER_WAY.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : []));
}

describe('the SQL runner is the one way to the database', () => {
  it('recognises the other ways and not the runner', () => {
    const refused = [
      "await em.execute('select 1');",
      'await tx.execute<{ n: number }[]>(sql, params);',
      "await orm.em.getConnection().execute('select 1');",
      'const client = em.getConnection().getClient();',
      'await executeBound(em, sql, params);',
      "await executePrepared(em, 'name', sql, params);",
    ];
    const allowed = ["await sqlOf(em).rows('select 1');", 'await sqlOf(tx).bound(sql, params);'];
    expect(refused.filter((line) => !OTHER_WAY.test(line))).toEqual([]);
    expect(allowed.filter((line) => OTHER_WAY.test(line))).toEqual([]);
  });

  it('is the only one production code outside src/infra/database uses', () => {
    const checked = productionFiles('src').filter(
      (file) => !file.startsWith(RUNNER_LAYER) && !BEING_CONVERTED.some((folder) => file.startsWith(folder)),
    );
    expect(checked.length).toBeGreaterThan(100);
    expect(checked.flatMap(otherWaysIn)).toEqual([]);
  });
});
