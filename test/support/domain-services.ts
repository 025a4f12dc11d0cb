import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { loadConfig } from '../../src/config';
import { entities } from '../../src/entities';
import { openDatabase, type Orm } from '../../src/infra/database/orm';
import { createLogger } from '../../src/infra/logger';
import { FilesystemStore } from '../../src/infra/object-store/filesystem-store';
import { shutdownSteps } from '../../src/infra/shutdown';
import type { IncomingContent } from '../../src/kernel/content';
import { AccessTrail, type AccessEvent } from '../../src/kernel/access-trail';
import { hexId } from '../../src/kernel/ids';
import { ANONYMOUS, type Principal } from '../../src/kernel/principal';
import { LoaderRegistry, type Scope } from '../../src/kernel/scope';
import type { Permission } from '../../src/domains/permissions/permission.model';
import { newShareCode } from '../../src/domains/clinics/share-code';
import type { ClinicRecord } from '../../src/domains/clinics/clinic.entity';
import type { ClinicFields } from '../../src/domains/clinics/clinic-fields';
import { createServices } from '../../src/services';
import type { Services } from '../../src/service-catalog';
import { createTestDatabase, type TestDatabase } from './database';
import { insertClinicRow } from './clinic-rows';

/** What a server logs in with (SERVER_SECRET). */
export const SERVER_SECRET = 'domain-test-server-secret-0123456789';
const DEV_CLIENT_SECRET = 'domain-test-dev-client-secret-0123456789';

/** A request's scope whose access decisions are kept for the test instead of going to the access log. */
export interface TestScope extends Scope {
  /** The access decisions recorded so far, as the access log would get them. */
  decisions(): Promise<AccessEvent[]>;
}

/** Every service wired as in production (src/services.ts), on a database and a data folder of their own, no HTTP. */
export interface DomainWorld {
  services: Services;
  orm: Orm;
  database: TestDatabase;
  /** A fresh request scope for `principal`: its own unit of work and loaders. */
  scope(principal: Principal): TestScope;
  /** The keys of the objects stored under `prefix`. */
  storedKeys(prefix: string): Promise<string[]>;
  /** A new account (no password unless given), returning its id. */
  account(fields?: { email?: string; passwordHash?: string }): Promise<string>;
  /** `sharerId` lets `granteeId` do `permissions` with its data (replacing what it held). */
  share(sharerId: string, granteeId: string, permissions: readonly Permission[]): Promise<void>;
  /**
   * A clinic with `clinicianId` as a member in `roles`, and `patients` (each with the permissions
   * it granted the clinic). Written as rows, so tests of other domains rest on no clinic rule.
   */
  clinic(options: {
    clinicianId?: string;
    roles?: readonly string[];
    patients?: Record<string, readonly string[]>;
  }): Promise<string>;
  /**
   * A clinic created through the service by its admin, with a CLINIC_MEMBER and a PRESCRIBER
   * added by a server, and an outsider account.
   */
  staffedClinic(fields?: ClinicFields): Promise<StaffedClinic>;
  stop(): Promise<void>;
}

export interface StaffedClinic {
  clinic: ClinicRecord;
  admin: string;
  member: string;
  prescriber: string;
  outsider: string;
}

export const asUser = (userId: string): Principal => ({
  ...ANONYMOUS,
  userId,
  realm: 'dev1',
  clientId: 'tidepool-app',
  grantId: null,
  expiresAt: Math.floor(Date.now() / 1000) + 300,
});
export const AS_SERVER: Principal = { ...ANONYMOUS, isServer: true, realm: 'dev1', clientId: 'backend' };
/** A client authenticated for no account (client credentials of a non-server client). */
export const AS_CLIENT: Principal = { ...ANONYMOUS, realm: 'dev1', clientId: 'tidepool-app' };

/** Content as both transports hand it to a service. */
export const contentOf = (body: string | Buffer, mediaType = 'application/octet-stream'): IncomingContent => ({
  stream: Readable.from([Buffer.from(body)]),
  mediaType,
});

/** Settles to 'ok' or the AppError code it was refused with. */
export const outcomeOf = (promise: Promise<unknown>): Promise<string | undefined> =>
  promise.then(
    () => 'ok',
    (error: { code?: string }) => error.code ?? String(error),
  );

/** Starts the services for one test file, with `env` over the test settings; `stop` in afterAll. */
export async function startDomainWorld(env: Record<string, string> = {}): Promise<DomainWorld> {
  const database = await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'islet-domain-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    SERVER_SECRET,
    DEV_CLIENT_SECRET,
    // Tests log in many times from one address; the password budget has tests of its own.
    PASSWORD_CHECKS_PER_SECOND: '10000',
    // Hashing at OWASP's cost would take about 50 ms of CPU per sign-up and login (docs/security.md).
    PASSWORD_HASH_MEMORY_KIB: '1024',
    PASSWORD_HASH_PASSES: '1',
    ...env,
  });
  const logger = createLogger('silent');
  const objectStore = new FilesystemStore(dataDir);
  const orm = await openDatabase(database.url, entities, 4);
  const services = await createServices({
    config,
    logger,
    orm,
    objectStore,
    baseUrl: 'http://127.0.0.1:9',
    secrets: { serverSecret: SERVER_SECRET, devClientSecret: DEV_CLIENT_SECRET },
  });
  const scope = (principal: Principal): TestScope => {
    const recorded: AccessEvent[] = [];
    const made: TestScope = {
      principal,
      em: orm.em.fork(),
      loaders: new LoaderRegistry(),
      requestId: 'test',
      remoteAddress: '203.0.113.9',
      logger,
      accessTrail: new AccessTrail(async (_em, _scope, events) => void recorded.push(...events)),
      decisions: async () => {
        await made.accessTrail.flush(made);
        return recorded;
      },
    };
    return made;
  };
  const world: DomainWorld = {
    services,
    orm,
    database,
    scope,
    async storedKeys(prefix) {
      const keys: string[] = [];
      for await (const key of objectStore.list(prefix)) keys.push(key);
      return keys.sort();
    },
    async account(fields = {}) {
      const email = fields.email ?? `${hexId(8)}@example.org`;
      const em = orm.em.fork();
      const user = await services.users.insert(
        em,
        { username: email, emails: [email], roles: [], passwordHash: fields.passwordHash },
        null,
      );
      return user.id;
    },
    async share(sharerId, granteeId, permissions) {
      await services.permissions.setPermissions(scope(AS_SERVER), sharerId, granteeId, permissions);
    },
    async staffedClinic(fields = { name: 'Clinic', preferredBgUnits: 'MG_DL' }) {
      const [admin, member, prescriber, outsider] = await Promise.all([1, 2, 3, 4].map(() => world.account()));
      const clinic = await services.clinics.create(scope(asUser(admin)), fields);
      for (const [userId, role] of [
        [member, 'CLINIC_MEMBER'],
        [prescriber, 'PRESCRIBER'],
      ])
        await services.clinicians.create(scope(AS_SERVER), clinic.id, {
          userId,
          email: `${userId}@example.org`,
          roles: [role],
        });
      return { clinic, admin, member, prescriber, outsider };
    },
    async clinic({ clinicianId, roles = ['CLINIC_MEMBER'], patients = {} }) {
      const clinicId = hexId(24);
      await insertClinicRow(database, { id: clinicId, name: 'Test clinic', shareCode: newShareCode(), units: 'MG_DL' });
      if (clinicianId)
        await database.query(
          `insert into clinicians (clinic_id, user_id, roles, created_time, updated_time) values ($1, $2, $3, now(), now())`,
          [clinicId, clinicianId, roles],
        );
      for (const [patientId, permissions] of Object.entries(patients))
        await database.query(
          `insert into clinic_patients (clinic_id, user_id, full_name, tags, permissions, reviews, created_time, updated_time)
           values ($1, $2, 'Patient', '{}', $3, '[]', now(), now())`,
          [clinicId, patientId, permissions],
        );
      return clinicId;
    },
    async stop() {
      await services.close(shutdownSteps(logger, Date.now() + config.shutdownTimeoutMs));
      await orm.close();
      await database.release();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return world;
}
