import { describe } from '@jest/globals';
import { postgresBinaries } from './standby';

/**
 * Replica suites need the PostgreSQL server binaries (Debian's postgresql package). `.ci/run`
 * sets REQUIRE_REPLICA=1, so in CI their absence fails the run; elsewhere the suite is skipped
 * with a notice.
 */
export function describeWithStandby(name: string, body: () => void): void {
  if (postgresBinaries()) return describe(name, body);
  if (process.env.REQUIRE_REPLICA === '1')
    throw new Error('initdb, pg_ctl and pg_basebackup are missing: install Debian’s postgresql package');
  process.stderr.write(`skipping "${name}": no PostgreSQL server binaries (apt-get install postgresql)\n`);
  describe.skip(name, body);
}
