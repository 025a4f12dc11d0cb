import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { entities } from '../../entities';
import { openDatabase, type Orm } from '../../infra/database/orm';
import { createLogger } from '../../infra/logger';
import { AccessTrail } from '../../kernel/access-trail';
import { ANONYMOUS } from '../../kernel/principal';
import { LoaderRegistry, type Scope } from '../../kernel/scope';
import { AccessPolicy } from '../permissions/access-policy';
import type { PagedList } from '../../kernel/paging';
import { AccessLogService, type AccessLogEntry, type AccessLogFilter } from './access-log.service';
import { GroupedEntryWriter, type ExistingAccounts, type RecordRow } from './access-log.writer';

/**
 * Reading the log over the stored records: a user's log and a clinic's, newest first, page after
 * page (a record of several accounts is several entries, and a page may end inside it), counted
 * and filtered alike.
 */
let database: TestDatabase;
let orm: Orm;

const CLINIC = 'c'.repeat(24);
const HOURS_USER = 'b000000001';
const service = new AccessLogService(
  new AccessPolicy(),
  async () => undefined,
  async () => new Map(),
);

const record = (request: string, subjects: string[], overrides: Partial<RecordRow> = {}): RecordRow => ({
  at: new Date(),
  actor_user_id: 'clinician1',
  actor_is_server: false,
  client_id: 'web',
  clinic_id: CLINIC,
  operation: 'clinicPatients',
  outcome: 'ALLOWED',
  request_id: request,
  subject_ids: subjects,
  object_ids: subjects.map(() => []),
  ...overrides,
});

/** The records name made-up accounts: every subject counts as one. */
const everyAccount: ExistingAccounts = async (_em, ids) => new Set(ids);

beforeAll(async () => {
  database = await createTestDatabase();
  orm = await openDatabase(database.url, entities, 2);
  const writer = new GroupedEntryWriter(() => orm.em.fork(), createLogger('silent'), everyAccount);
  // One INSERT each, so the records are numbered in this order.
  for (const records of [
    [record('r1', ['a000000001', 'a000000002', 'a000000003'])],
    [record('r2', ['a000000001'], { clinic_id: null, operation: 'user', object_ids: [['blob-1']] })],
    [record('r3', ['a000000002', 'a000000001'], { outcome: 'REFUSED' })],
    // A user's log over hours: records are dated by the instance that wrote them, so one of 9
    // o'clock may follow one of 10 (r-9h-late); hours and days apart, several in an hour.
    [record('r-10h', [HOURS_USER], { clinic_id: null, at: new Date('2026-03-10T10:00:00.000Z') })],
    [record('r-9h-late', [HOURS_USER, 'a000000009'], { clinic_id: null, at: new Date('2026-03-10T09:59:59.999Z') })],
    [record('r-10h-later', ['a000000009', HOURS_USER], { clinic_id: null, at: new Date('2026-03-10T10:45:00Z') })],
    [record('r-7th', [HOURS_USER], { clinic_id: null, at: new Date('2026-03-07T08:00:00Z'), outcome: 'REFUSED' })],
    [record('r-1st', [HOURS_USER], { clinic_id: null, at: new Date('2026-03-01T08:00:00Z') })],
    [
      record('r-jan', [HOURS_USER, HOURS_USER], {
        clinic_id: null,
        at: new Date('2026-01-15T08:00:00Z'),
        object_ids: [['x'], ['y']],
      }),
    ],
  ]) {
    await writer.write(records);
    await writer.flush();
  }
});

afterAll(async () => {
  await orm?.close();
  await database?.release();
});

const scope = (): Scope => ({
  principal: { ...ANONYMOUS, isServer: true, realm: 'dev1', clientId: 'backend' },
  em: orm.em.fork(),
  loaders: new LoaderRegistry(),
  requestId: 'reader',
  remoteAddress: '127.0.0.1',
  logger: createLogger('silent'),
  accessTrail: new AccessTrail(null),
});

type Log = 'ofUser' | 'ofClinic';

/** Every entry of a log, read `first` at a time; as "request:account". */
async function readAll(log: Log, owner: string, first: number, filter: AccessLogFilter = {}) {
  const seen: string[] = [];
  let after: string | null = null;
  for (;;) {
    const { page }: PagedList<AccessLogEntry> = await service[log](scope(), owner, { first, after, filter });
    seen.push(...page.nodes.map((entry) => `${entry.requestId}:${entry.subjectId}`));
    if (!page.hasNextPage) return seen;
    after = page.cursorAt(page.nodes.length - 1);
  }
}

const countOf = async (log: Log, owner: string, filter: AccessLogFilter = {}) =>
  (await service[log](scope(), owner, { filter })).count();

describe('reading the access log over its records', () => {
  it('a clinic’s log: every account of its records, newest first, whatever the page size', async () => {
    const all = ['r3:a000000001', 'r3:a000000002', 'r1:a000000003', 'r1:a000000002', 'r1:a000000001'];
    for (const first of [1, 2, 5, 10]) expect(await readAll('ofClinic', CLINIC, first)).toEqual(all);
    expect(await countOf('ofClinic', CLINIC)).toBe(5);
  });

  it('a user’s log: that account’s entries of every record, newest first, with their own object ids', async () => {
    for (const first of [1, 2, 3]) {
      expect(await readAll('ofUser', 'a000000001', first)).toEqual(['r3:a000000001', 'r2:a000000001', 'r1:a000000001']);
    }
    expect(await countOf('ofUser', 'a000000001')).toBe(3);
    const { page } = await service.ofUser(scope(), 'a000000001');
    expect(page.nodes.map((entry) => entry.objectIds)).toEqual([[], ['blob-1'], []]);
    expect(page.nodes.map((entry) => entry.clinicId)).toEqual([CLINIC, null, CLINIC]);
  });

  it('reads and counts many clinics’ logs together as each alone', async () => {
    const clinics = [CLINIC, 'd'.repeat(24), CLINIC];
    for (const first of [1, 2, 10]) {
      const alone = await Promise.all(clinics.map((clinic) => service.ofClinic(scope(), clinic, { first })));
      const batched = scope();
      const pages = await Promise.all(clinics.map((clinic) => service.ofClinic(batched, clinic, { first })));
      expect(pages.map(({ page }) => page.nodes)).toEqual(alone.map(({ page }) => page.nodes));
      expect(pages[0]!.page.nodes).toHaveLength(Math.min(first, 5));
      expect(await Promise.all(pages.map(({ count }) => count()))).toEqual([5, 0, 5]);
    }
  });

  it('filters and counts both logs by outcome and time', async () => {
    const refused = { outcome: 'REFUSED' as const };
    expect(await readAll('ofClinic', CLINIC, 1, refused)).toEqual(['r3:a000000001', 'r3:a000000002']);
    expect(await countOf('ofClinic', CLINIC, refused)).toBe(2);
    expect(await readAll('ofUser', 'a000000002', 1, refused)).toEqual(['r3:a000000002']);
    expect(await countOf('ofUser', 'a000000002', refused)).toBe(1);
    const future = { startAt: new Date(Date.now() + 60_000) };
    expect(await readAll('ofUser', 'a000000001', 2, future)).toEqual([]);
    expect(await countOf('ofClinic', CLINIC, future)).toBe(0);
  });
});

describe('a user’s log over many hours', () => {
  const newestFirst = [
    'r-10h-later:b000000001',
    'r-10h:b000000001',
    'r-9h-late:b000000001',
    'r-7th:b000000001',
    'r-1st:b000000001',
    'r-jan:b000000001',
    'r-jan:b000000001',
  ];

  it('reads newest hour first, and within an hour the newest record first, whatever the page size', async () => {
    for (const first of [1, 2, 3, 4, 6, 7, 100])
      expect(await readAll('ofUser', HOURS_USER, first)).toEqual(newestFirst);
    const { page } = await service.ofUser(scope(), HOURS_USER, { first: 7 });
    expect(page.nodes.slice(5).map((entry) => entry.objectIds)).toEqual([['y'], ['x']]);
  });

  it('counts hours that are over once, then adds up their stored counts', async () => {
    expect(await countOf('ofUser', HOURS_USER)).toBe(7);
    const stored = await database.query(
      `select sum(allowed)::int as allowed, sum(refused)::int as refused from access_log_hours where subject_id = $1`,
      [HOURS_USER],
    );
    expect(stored).toEqual([{ allowed: 6, refused: 1 }]);
    expect(await countOf('ofUser', HOURS_USER)).toBe(7);
    expect(await countOf('ofUser', HOURS_USER, { outcome: 'REFUSED' })).toBe(1);
    expect(await countOf('ofUser', HOURS_USER, { outcome: 'ALLOWED' })).toBe(6);
  });

  it('reads and counts only what a time filter covers, hours it covers in part included', async () => {
    const march = { startAt: new Date('2026-03-01T08:30:00Z'), endAt: new Date('2026-03-10T10:30:00Z') };
    const inMarch = ['r-10h:b000000001', 'r-9h-late:b000000001', 'r-7th:b000000001'];
    expect(await readAll('ofUser', HOURS_USER, 2, march)).toEqual(inMarch);
    expect(await countOf('ofUser', HOURS_USER, march)).toBe(3);
    expect(await countOf('ofUser', HOURS_USER, { ...march, outcome: 'ALLOWED' })).toBe(2);
    const wholeHours = { startAt: new Date('2026-03-07T08:00:00Z'), endAt: new Date('2026-03-10T10:00:00Z') };
    expect(await countOf('ofUser', HOURS_USER, wholeHours)).toBe(2);
    expect(await readAll('ofUser', HOURS_USER, 1, { outcome: 'REFUSED' })).toEqual(['r-7th:b000000001']);
  });

  it('counts a record written late into an hour already counted', async () => {
    const writer = new GroupedEntryWriter(() => orm.em.fork(), createLogger('silent'), everyAccount);
    expect(await countOf('ofUser', 'a000000009')).toBe(2);
    await writer.write([record('r-late', ['a000000009'], { clinic_id: null, at: new Date('2026-03-10T09:30:00Z') })]);
    await writer.flush();
    expect(await countOf('ofUser', 'a000000009')).toBe(3);
    expect(await readAll('ofUser', 'a000000009', 2)).toEqual([
      'r-10h-later:a000000009',
      'r-late:a000000009',
      'r-9h-late:a000000009',
    ]);
  });

  it('reads and counts many users’ logs together as each alone, a user named twice once', async () => {
    const users = [HOURS_USER, 'a000000001', HOURS_USER, 'a000000009', 'a000000404'];
    for (const first of [1, 3, 100]) {
      const together = await Promise.all(users.map((user) => service.ofUser(scope(), user, { first })));
      const batched = scope();
      const pages = await Promise.all(users.map((user) => service.ofUser(batched, user, { first })));
      expect(pages.map(({ page }) => page.nodes)).toEqual(together.map(({ page }) => page.nodes));
      expect(await Promise.all(pages.map(({ count }) => count()))).toEqual([7, 3, 7, 3, 0]);
    }
  });

  it('refuses a cursor of another list', async () => {
    const { page } = await service.ofClinic(scope(), CLINIC, { first: 1 });
    await expect(service.ofUser(scope(), HOURS_USER, { after: page.cursorAt(0) })).rejects.toThrow(/after/);
    const own = await service.ofUser(scope(), HOURS_USER, { first: 1 });
    await expect(service.ofUser(scope(), 'a000000001', { after: own.page.cursorAt(0) })).rejects.toThrow(/after/);
  });
});
