import { afterAll, beforeAll } from '@jest/globals';
import { entities } from '../../src/entities';
import { openDatabase, type Orm } from '../../src/infra/database/orm';
import { createTestDatabase, type TestDatabase } from './database';

export interface TestOrm {
  readonly database: TestDatabase;
  readonly orm: Orm;
}

/**
 * A fresh database (cloned from the migrated template) and an ORM on it, for the tests of the
 * calling file: opened before them, and before the file's own `beforeAll` hooks registered after
 * this call; closed and dropped after them.
 */
export function useTestOrm(): TestOrm {
  let database: TestDatabase | undefined;
  let orm: Orm | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await openDatabase(database.url, entities, 2);
  });
  afterAll(async () => {
    await orm?.close();
    await database?.release();
  });
  return {
    get database() {
      return database!;
    },
    get orm() {
      return orm!;
    },
  };
}
