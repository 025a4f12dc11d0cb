import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { entities } from '../../entities';
import { openDatabase, type Orm } from '../../infra/database/orm';
import { createLogger } from '../../infra/logger';
import { ENTRY_SLOTS, GroupedEntryWriter, recordsOf, type RecordRow } from './access-log.writer';
import type { AccessEvent } from '../../kernel/access-trail';
import { ANONYMOUS } from '../../kernel/principal';

/**
 * The read entries' writer: answers do not wait for the INSERT, yet nothing handed over is lost
 * while the service runs, readers see what was handed over before, and a database that cannot
 * be reached only delays the entries.
 */
let database: TestDatabase;
let orm: Orm;

beforeAll(async () => {
  database = await createTestDatabase();
  orm = await openDatabase(database.url, entities, 2);
});

afterAll(async () => {
  await orm?.close();
  await database?.release();
});

const entry = (subject: string, operation: string): RecordRow => ({
  at: new Date('2026-11-25T10:00:00.123Z'),
  actor_user_id: 'reader0001',
  actor_is_server: false,
  client_id: 'app',
  clinic_id: null,
  operation,
  outcome: 'ALLOWED',
  request_id: `request-${operation}`,
  subject_ids: [subject],
  object_ids: [[]],
});

/** A subject's entries as the log reads them: each with its record's columns and its own object ids. */
const entriesOf = (subject: string) =>
  database.query(
    `select r.at, s.subject_id, r.actor_user_id, r.actor_is_server, r.client_id, r.clinic_id, r.operation,
            s.object_ids::text[] as object_ids, r.outcome, r.request_id
       from access_log_records r, unnest(r.subject_ids, r.object_ids) with ordinality as s(subject_id, object_ids, position)
      where s.subject_id = $1 order by r.id, s.position`,
    [subject],
  );

const operationsOf = async (subject: string) => (await entriesOf(subject)).map((row) => row.operation);

/** A logger that keeps what it is told at warn and error. */
function keepingLogger() {
  const logger = createLogger('silent');
  const told: string[] = [];
  logger.warn = ((_fields: unknown, message: string) => void told.push(`warn: ${message}`)) as typeof logger.warn;
  logger.error = ((_fields: unknown, message: string) => void told.push(`error: ${message}`)) as typeof logger.error;
  return { logger, told };
}

describe('the read entries’ writer', () => {
  it('a flush returns once every entry handed over before it is written, in order', async () => {
    const writer = new GroupedEntryWriter(() => orm.em.fork(), createLogger('silent'));
    const handedOver = Array.from({ length: 30 }, (_, index) => writer.write([entry('subject01', `read-${index}`)]));
    await Promise.all(handedOver);
    await writer.flush();
    expect(await operationsOf('subject01')).toEqual(Array.from({ length: 30 }, (_, index) => `read-${index}`));
  });

  it('writes entries handed over one after another in one INSERT, without being asked to', async () => {
    const writer = new GroupedEntryWriter(() => orm.em.fork(), createLogger('silent'));
    // Handed over one after another (the first would otherwise start its INSERT at once).
    for (const index of [0, 1, 2]) void writer.write([entry('subject06', `read-${index}`)]);
    // No flush: the writer writes on its own, and each INSERT is one transaction (one xmin).
    let rows: Record<string, unknown>[] = [];
    while (rows.length < 3) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      rows = await database.query("select xmin::text as tx from access_log_records where subject_ids = '{subject06}'");
    }
    expect(new Set(rows.map((row) => row.tx)).size).toBe(1);
  });

  it('keeps every column of every record as handed over, nulls, quotes and object ids of any number included', async () => {
    const writer = new GroupedEntryWriter(() => orm.em.fork(), createLogger('silent'));
    const records: RecordRow[] = [
      { ...entry('subject05', 'GET /v1/users/:userId'), object_ids: [['a,b', '{"c"}', 'back\\slash', 'NULL']] },
      { ...entry('subject05', 'readBlob'), actor_user_id: null, actor_is_server: true, client_id: null },
      { ...entry('subject05', 'listPatients'), clinic_id: '0123456789abcdef01234567', outcome: 'REFUSED' },
    ];
    await writer.write(records);
    await writer.flush();
    const asEntry = ({ subject_ids, object_ids, ...record }: RecordRow) => ({
      ...record,
      subject_id: subject_ids[0],
      object_ids: object_ids[0],
    });
    expect(await entriesOf('subject05')).toEqual(records.map(asEntry));
  });

  it('gives each account of a record its own entry, with its own object ids, in order', async () => {
    const writer = new GroupedEntryWriter(() => orm.em.fork(), createLogger('silent'));
    await writer.write([
      {
        ...entry('subject07', 'blobs'),
        subject_ids: ['subject07', 'subject08', 'subject07'],
        object_ids: [['blob-1'], [], ['blob-2', 'blob-3']],
      },
    ]);
    await writer.flush();
    expect((await entriesOf('subject07')).map((row) => row.object_ids)).toEqual([['blob-1'], ['blob-2', 'blob-3']]);
    expect((await entriesOf('subject08')).map((row) => row.object_ids)).toEqual([[]]);
  });

  it('notes each account’s hours in access_log_hours, once per hour and account, by the hour of each record', async () => {
    const writer = new GroupedEntryWriter(() => orm.em.fork(), createLogger('silent'));
    const on = (at: string, subjects: string[]): RecordRow => ({
      ...entry(subjects[0]!, 'users'),
      at: new Date(at),
      subject_ids: subjects,
      object_ids: subjects.map(() => []),
    });
    await writer.write([on('2026-11-24T09:59:59.999Z', ['subject09', 'subject10'])]);
    await writer.flush();
    await writer.write([on('2026-11-24T10:00:00.000Z', ['subject09']), on('2026-11-24T09:00:00Z', ['subject09'])]);
    await writer.flush();
    const hours = await database.query(
      `select subject_id, hour from access_log_hours where subject_id in ('subject09', 'subject10') order by subject_id, hour`,
    );
    const nine = Date.UTC(2026, 10, 24, 9) / 3_600_000;
    expect(hours.map((row) => [row.subject_id, row.hour])).toEqual([
      ['subject09', nine],
      ['subject09', nine + 1],
      ['subject10', nine],
    ]);
  });

  it('clears an hour’s stored counts when a record of that hour comes late', async () => {
    const writer = new GroupedEntryWriter(() => orm.em.fork(), createLogger('silent'));
    const late = { ...entry('subject11', 'late'), at: new Date('2026-11-20T08:30:00Z') };
    await writer.write([late]);
    await writer.flush();
    await database.query(`update access_log_hours set allowed = 1, refused = 0 where subject_id = 'subject11'`);
    await writer.write([late]);
    await writer.flush();
    const [hour] = await database.query(`select allowed, refused from access_log_hours where subject_id = 'subject11'`);
    expect(hour).toEqual({ allowed: null, refused: null });
  });

  it('answers at once while the database cannot be reached, and writes the entries once it can', async () => {
    const { logger, told } = keepingLogger();
    const writer = new GroupedEntryWriter(() => orm.em.fork(), logger);
    await database.setAvailable(false);
    try {
      await writer.write([entry('subject02', 'during-outage')]);
      while (!told.length) await new Promise((resolve) => setImmediate(resolve));
      expect(told[0]).toBe('warn: access log entries wait for the database');
    } finally {
      await database.setAvailable(true);
    }
    await writer.flush();
    expect(await operationsOf('subject02')).toEqual(['during-outage']);
  });

  it('stopping writes what is queued, and says what it had to give up', async () => {
    const writer = new GroupedEntryWriter(() => orm.em.fork(), createLogger('silent'));
    void writer.write([entry('subject03', 'before-stop')]);
    await writer.close(10_000);
    expect(await operationsOf('subject03')).toEqual(['before-stop']);

    const { logger, told } = keepingLogger();
    const stranded = new GroupedEntryWriter(() => orm.em.fork(), logger);
    await database.setAvailable(false);
    try {
      void stranded.write([entry('subject04', 'never-written')]);
      await stranded.close(0);
      expect(told).toContain('error: access log entries were lost at shutdown');
    } finally {
      await database.setAvailable(true);
    }
  });
});

describe('a request’s decisions as records', () => {
  const reader = { ...ANONYMOUS, userId: 'reader0001', realm: 'dev1' as const, clientId: 'app' };
  const event = (subjectId: string, overrides: Partial<AccessEvent> = {}): AccessEvent => ({
    subjectId,
    outcome: 'ALLOWED',
    operation: 'users',
    objectIds: [],
    clinicId: null,
    ...overrides,
  });

  it('holds the decisions of one kind in one record, a record per operation, outcome and clinic', () => {
    const records = recordsOf(reader, 'request-1', [
      event('a'),
      event('b', { outcome: 'REFUSED' }),
      event('c'),
      event('d', { clinicId: 'clinic' }),
      event('e', { operation: 'user', objectIds: ['x'] }),
    ]);
    expect(records.map((record) => [record.operation, record.outcome, record.clinic_id, record.subject_ids])).toEqual([
      ['users', 'ALLOWED', null, ['a', 'c']],
      ['users', 'REFUSED', null, ['b']],
      ['users', 'ALLOWED', 'clinic', ['d']],
      ['user', 'ALLOWED', null, ['e']],
    ]);
    expect(records[3]).toMatchObject({ actor_user_id: 'reader0001', client_id: 'app', request_id: 'request-1' });
    expect(records[3]!.object_ids).toEqual([['x']]);
  });

  it('starts another record once one holds ENTRY_SLOTS accounts', () => {
    const events = Array.from({ length: ENTRY_SLOTS + 1 }, (_, index) => event(`s${index}`));
    expect(recordsOf(reader, 'request-2', events).map((record) => record.subject_ids.length)).toEqual([ENTRY_SLOTS, 1]);
  });
});
