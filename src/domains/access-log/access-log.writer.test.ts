import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { entities } from '../../entities';
import { openDatabase, type Orm } from '../../infra/database/orm';
import { createLogger } from '../../infra/logger';
import { GroupedEntryWriter, type EntryRow } from './access-log.writer';

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

const entry = (subject: string, operation: string): EntryRow => ({
  subject_id: subject,
  actor_user_id: 'reader0001',
  actor_is_server: false,
  client_id: 'app',
  clinic_id: null,
  operation,
  object_ids: [],
  outcome: 'ALLOWED',
  request_id: `request-${operation}`,
});

const operationsOf = async (subject: string) =>
  (await database.query('select operation from access_log where subject_id = $1 order by id', [subject])).map(
    (row) => row.operation,
  );

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
      rows = await database.query("select xmin::text as tx from access_log where subject_id = 'subject06'");
    }
    expect(new Set(rows.map((row) => row.tx)).size).toBe(1);
  });

  it('keeps every column of every row as handed over, nulls, quotes and object ids of any number included', async () => {
    const writer = new GroupedEntryWriter(() => orm.em.fork(), createLogger('silent'));
    const rows: EntryRow[] = [
      { ...entry('subject05', 'GET /v1/users/:userId'), object_ids: ['a,b', '{"c"}', 'back\\slash', 'NULL'] },
      { ...entry('subject05', 'readBlob'), actor_user_id: null, actor_is_server: true, client_id: null },
      { ...entry('subject05', 'listPatients'), clinic_id: '0123456789abcdef01234567', outcome: 'REFUSED' },
    ];
    await writer.write(rows);
    await writer.flush();
    const stored = await database.query(
      `select subject_id, actor_user_id, actor_is_server, client_id, clinic_id, operation, object_ids, outcome, request_id
         from access_log where subject_id = 'subject05' order by id`,
    );
    expect(stored).toEqual(rows);
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
