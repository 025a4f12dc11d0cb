import { describe, expect, it } from '@jest/globals';
import { useTestOrm } from '../../../test/support/test-orm';
import { eventually } from '../../../test/support/eventually';
import { createLogger } from '../../infra/logger';
import { ENTRY_SLOTS, GroupedEntryWriter, recordsOf, type ExistingAccounts, type RecordRow } from './access-log.writer';
import { accessLogEntriesLost } from '../../infra/metrics';
import { UNKNOWN_SUBJECT, type AccessEvent } from '../../kernel/access-trail';
import { ANONYMOUS } from '../../kernel/principal';

/**
 * The read entries' writer: answers do not wait for the INSERT, yet nothing handed over is lost
 * while the service runs, readers see what was handed over before, and a database that cannot
 * be reached only delays the entries.
 */

const tested = useTestOrm();

/** The records name made-up accounts: every subject counts as one, unless a test says otherwise. */
const everyAccount: ExistingAccounts = async (_em, ids) => new Set(ids);

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
  tested.database.query(
    `select r.at, s.subject_id, r.actor_user_id, r.actor_is_server, r.client_id, r.clinic_id, r.operation,
            s.object_ids::text[] as object_ids, r.outcome, r.request_id
       from access_log_records r, unnest(r.subject_ids, r.object_ids) with ordinality as s(subject_id, object_ids, position)
      where s.subject_id = $1 order by r.id, s.position`,
    [subject],
  );

const operationsOf = async (subject: string) => (await entriesOf(subject)).map((row) => row.operation);

/** A logger that keeps what it is told at warn and error, and the fields of the errors. */
function keepingLogger() {
  const logger = createLogger('silent');
  const told: string[] = [];
  const errorFields: Record<string, unknown>[] = [];
  logger.warn = ((_fields: unknown, message: string) => void told.push(`warn: ${message}`)) as typeof logger.warn;
  logger.error = ((fields: Record<string, unknown>, message: string) => {
    told.push(`error: ${message}`);
    errorFields.push(fields);
  }) as typeof logger.error;
  return { logger, told, errorFields };
}

/** Entries given up so far, by reason, as /metrics shows them. */
async function lost(reason: string): Promise<number> {
  const { values } = await accessLogEntriesLost.get();
  return values.find((value) => value.labels.reason === reason)?.value ?? 0;
}

describe('the read entries’ writer', () => {
  it('a flush returns once every entry handed over before it is written, in order', async () => {
    const writer = new GroupedEntryWriter(() => tested.orm.em.fork(), createLogger('silent'), everyAccount);
    const handedOver = Array.from({ length: 30 }, (_, index) => writer.write([entry('subject01', `read-${index}`)]));
    await Promise.all(handedOver);
    await writer.flush();
    expect(await operationsOf('subject01')).toEqual(Array.from({ length: 30 }, (_, index) => `read-${index}`));
  });

  it('writes entries handed over one after another in one INSERT, without being asked to', async () => {
    const writer = new GroupedEntryWriter(() => tested.orm.em.fork(), createLogger('silent'), everyAccount);
    // Handed over one after another (the first would otherwise start its INSERT at once).
    for (const index of [0, 1, 2]) void writer.write([entry('subject06', `read-${index}`)]);
    // No flush: the writer writes on its own, and each INSERT is one transaction (one xmin).
    let rows: Record<string, unknown>[] = [];
    await eventually(
      async () => {
        rows = await tested.database.query(
          "select xmin::text as tx from access_log_records where subject_ids = '{subject06}'",
        );
        return rows.length === 3;
      },
      'the writer has written the three entries on its own',
      5_000,
    );
    expect(new Set(rows.map((row) => row.tx)).size).toBe(1);
  });

  it('keeps every column of every record as handed over, nulls, quotes and object ids of any number included', async () => {
    const writer = new GroupedEntryWriter(() => tested.orm.em.fork(), createLogger('silent'), everyAccount);
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
    const writer = new GroupedEntryWriter(() => tested.orm.em.fork(), createLogger('silent'), everyAccount);
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
    const writer = new GroupedEntryWriter(() => tested.orm.em.fork(), createLogger('silent'), everyAccount);
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
    const hours = await tested.database.query(
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
    const writer = new GroupedEntryWriter(() => tested.orm.em.fork(), createLogger('silent'), everyAccount);
    const late = { ...entry('subject11', 'late'), at: new Date('2026-11-20T08:30:00Z') };
    await writer.write([late]);
    await writer.flush();
    await tested.database.query(`update access_log_hours set allowed = 1, refused = 0 where subject_id = 'subject11'`);
    await writer.write([late]);
    await writer.flush();
    const [hour] = await tested.database.query(
      `select allowed, refused from access_log_hours where subject_id = 'subject11'`,
    );
    expect(hour).toEqual({ allowed: null, refused: null });
  });

  it('answers at once while the database cannot be reached, and writes the entries once it can', async () => {
    const { logger, told } = keepingLogger();
    const writer = new GroupedEntryWriter(() => tested.orm.em.fork(), logger, everyAccount);
    await tested.database.setAvailable(false);
    try {
      await writer.write([entry('subject02', 'during-outage')]);
      await eventually(async () => told.length > 0, 'the writer warns that entries wait', 5_000);
      expect(told[0]).toBe('warn: access log entries wait for the database');
    } finally {
      await tested.database.setAvailable(true);
    }
    await writer.flush();
    expect(await operationsOf('subject02')).toEqual(['during-outage']);
  });

  it('halves a batch PostgreSQL refuses until the entry it refuses stands alone: every other entry is kept', async () => {
    const { logger, told, errorFields } = keepingLogger();
    const writer = new GroupedEntryWriter(() => tested.orm.em.fork(), logger, everyAccount);
    const lostBefore = await lost('refused');
    // One handing over, so one batch: without halving, the two refused entries took the other four down.
    await writer.write([
      entry('subject12', 'before'),
      { ...entry('subject13', 'clinic-id-too-long'), clinic_id: 'c'.repeat(25), request_id: 'request-long-clinic' },
      {
        ...entry('subject12', 'shared'),
        subject_ids: ['subject12', 'subject13', 'subject14'],
        object_ids: [['blob-1'], ['nul-\u0000-inside'], ['blob-3']],
        request_id: 'request-nul',
      },
      entry('subject14', 'after'),
    ]);
    await writer.flush();
    expect(await operationsOf('subject12')).toEqual(['before', 'shared']);
    expect(await operationsOf('subject13')).toEqual([]);
    expect(await operationsOf('subject14')).toEqual(['shared', 'after']);
    expect(await lost('refused')).toBe(lostBefore + 2);
    expect(told).toEqual([
      'error: an access log entry could not be written',
      'error: an access log entry could not be written',
    ]);
    expect(errorFields.map((fields) => fields.requestId)).toEqual(['request-long-clinic', 'request-nul']);
  });

  it('writes a subject that is no account as the unknown subject, asking about an account once an hour', async () => {
    const asked: string[][] = [];
    const onlyAccount = 'b000000001';
    const existing: ExistingAccounts = async (_em, ids) => {
      asked.push([...ids]);
      return new Set(ids.filter((id) => id === onlyAccount));
    };
    const writer = new GroupedEntryWriter(() => tested.orm.em.fork(), createLogger('silent'), existing);
    const now = {
      ...entry(onlyAccount, 'now'),
      at: new Date(),
      subject_ids: [onlyAccount, 'c000000001'],
      object_ids: [[], []],
    };
    await writer.write([{ ...now, request_id: 'first' }]);
    await writer.flush();
    await writer.write([{ ...now, request_id: 'second' }]);
    await writer.flush();
    const rows = await tested.database.query(
      `select request_id, subject_ids from access_log_records where request_id in ('first', 'second') order by id`,
    );
    expect(rows).toEqual([
      { request_id: 'first', subject_ids: [onlyAccount, UNKNOWN_SUBJECT] },
      { request_id: 'second', subject_ids: [onlyAccount, UNKNOWN_SUBJECT] },
    ]);
    expect(asked).toEqual([[onlyAccount, 'c000000001'], ['c000000001']]);
  });

  it('stopping writes what is queued, and says what it had to give up', async () => {
    const writer = new GroupedEntryWriter(() => tested.orm.em.fork(), createLogger('silent'), everyAccount);
    void writer.write([entry('subject03', 'before-stop')]);
    await writer.close(10_000);
    expect(await operationsOf('subject03')).toEqual(['before-stop']);

    const { logger, told } = keepingLogger();
    const stranded = new GroupedEntryWriter(() => tested.orm.em.fork(), logger, everyAccount);
    await tested.database.setAvailable(false);
    try {
      void stranded.write([entry('subject04', 'never-written')]);
      const lostBefore = await lost('shutdown');
      await stranded.close(0);
      expect(told).toContain('error: access log entries were lost at shutdown');
      expect(await lost('shutdown')).toBe(lostBefore + 1);
    } finally {
      await tested.database.setAvailable(true);
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
