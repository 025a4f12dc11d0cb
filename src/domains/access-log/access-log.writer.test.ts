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
    `select e.subject_id, r.actor_user_id, r.actor_is_server, r.client_id, r.clinic_id, r.operation,
            r.object_ids[e.id % ${ENTRY_SLOTS} + 1]::text[] as object_ids, r.outcome, r.request_id
       from access_log_entries e join access_log_records r on r.id = e.id / ${ENTRY_SLOTS}
      where e.subject_id = $1 order by e.id`,
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
      rows = await database.query("select xmin::text as tx from access_log_entries where subject_id = 'subject06'");
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
    // Entry ids: the record's id × ENTRY_SLOTS plus each account's position, so they follow the order handed over.
    const ids = await database.query(
      `select e.id::text, r.id::text as record from access_log_entries e join access_log_records r on r.id = e.id / ${ENTRY_SLOTS}
        where e.subject_id in ('subject07', 'subject08') order by e.id`,
    );
    const record = BigInt(ids[0]!.record as string);
    expect(ids.map((row) => BigInt(row.id as string) - record * BigInt(ENTRY_SLOTS))).toEqual([0n, 1n, 2n]);
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
