import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';

/**
 * The import-boundary rule of eslint.config.mjs (docs/architecture.md, "Layers"), checked
 * against the real config: an upgrade or an edit that silently drops a boundary fails here.
 */
const root = path.resolve(__dirname, '../..');
const eslint = new ESLint({ cwd: root });

async function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, filePath) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const refused: [string, string, string][] = [
  [
    'infra imports a domain',
    'src/infra/database/probe.ts',
    "import { UserSchema } from '../../domains/users/user.entity';",
  ],
  [
    'infra imports auth',
    'src/infra/database/probe.ts',
    "import { OidcRecordSchema } from '../../auth/oidc/oidc.entity';",
  ],
  ['infra imports rest-compat', 'src/infra/probe.ts', "import { restRoutes } from '../../rest-compat/routes';"],
  ['kernel imports src/graphql', 'src/kernel/probe.ts', "import { UploadScalar } from '../graphql/upload';"],
  ['kernel imports src/http', 'src/kernel/probe.ts', "import { HTTP_STATUS } from '../http/http-errors';"],
  [
    'kernel imports a domain type-only',
    'src/kernel/probe.ts',
    "import type { Permission } from '../domains/permissions/permission.model';",
  ],
  ['a service imports express', 'src/domains/blobs/probe.service.ts', "import type { Request } from 'express';"],
  [
    'a service imports src/graphql',
    'src/domains/blobs/probe.service.ts',
    "import { PageArgs } from '../../graphql/connection';",
  ],
  ['a service imports type-graphql', 'src/domains/blobs/probe.service.ts', "import { Field } from 'type-graphql';"],
  [
    'a service imports src/http',
    'src/domains/blobs/probe.service.ts',
    "import { HTTP_STATUS } from '../../http/http-errors';",
  ],
  [
    'a service imports rest-compat',
    'src/domains/blobs/probe.service.ts',
    "import { errorBody } from '../../../rest-compat/router';",
  ],
  [
    "a service reads another domain's entity",
    'src/domains/blobs/probe.service.ts',
    "import { UserSchema } from '../users/user.entity';",
  ],
  [
    "a resolver reads another domain's entity",
    'src/domains/blobs/probe.resolver.ts',
    "import type { UserRecord } from '../users/user.entity';",
  ],
  [
    'a resolver imports the GraphQL server',
    'src/domains/blobs/probe.resolver.ts',
    "import { createGraphql } from '../../graphql/server';",
  ],
  ['a types file imports express', 'src/domains/blobs/probe.types.ts', "import type { Request } from 'express';"],
  [
    "a domain's subfolder reads another domain's entity",
    'src/domains/clinics/tide/probe.ts',
    "import type { DatasetRecord } from '../../glucose/dataset.entity';",
  ],
  [
    "a domain's subfolder reads another domain's entity through domains/",
    'src/domains/clinics/tide/probe.ts',
    "import type { DatasetRecord } from '../../../domains/glucose/dataset.entity';",
  ],
  [
    "a resolver in a domain's subfolder reads another domain's entity",
    'src/domains/glucose/agp/probe.resolver.ts',
    "import type { UserRecord } from '../../users/user.entity';",
  ],
  [
    "a domain's subfolder imports express",
    'src/domains/glucose/agp/probe.ts',
    "import type { Request } from 'express';",
  ],
  [
    "a service imports auth's endpoints",
    'src/domains/users/probe.service.ts',
    "import { realmOf } from '../../auth/endpoints/realm-router';",
  ],
  ["auth's core imports its endpoints", 'src/auth/probe.ts', "import { realmRoutes } from './endpoints';"],
  [
    "auth's core imports its interactions from a subfolder",
    'src/auth/oidc/probe.ts',
    "import { AccountPages } from '../interactions/account-pages';",
  ],
  ["auth's core imports express", 'src/auth/brokering/probe.ts', "import type { Request } from 'express';"],
  ["auth's core imports src/http", 'src/auth/probe.ts', "import { rateLimit } from '../http/rate-limit';"],
  ["auth's core imports src/graphql", 'src/auth/probe.ts', "import { PageArgs } from '../graphql/connection';"],
  [
    "auth's core imports rest-compat",
    'src/auth/oidc/probe.ts',
    "import { errorBody } from '../../../rest-compat/router';",
  ],
  [
    "auth's resolver imports auth's endpoints",
    'src/auth/probe.resolver.ts',
    "import { realmRoutes } from './endpoints';",
  ],
  ['src/http imports rest-compat', 'src/http/probe.ts', "import { errorBody } from '../../rest-compat/router';"],
  ['src/http imports the playground', 'src/http/probe.ts', "import { playgroundRouter } from '../playground/page';"],
  ['src/graphql imports the composition root', 'src/graphql/probe.ts', "import type { Services } from '../services';"],
  [
    'rest-compat imports the composition root',
    'rest-compat/routes/probe.ts',
    "import type { Services } from '../../src/services';",
  ],
  ["auth's endpoints import the app", 'src/auth/endpoints/probe.ts', "import { createApp } from '../../app';"],
  [
    "auth's interactions import the service",
    'src/auth/interactions/probe.ts',
    "import { startService } from '../../service';",
  ],
  ['the playground imports main', 'src/playground/probe.ts', "import '../main';"],
  ['src/http imports the composition root', 'src/http/probe.ts', "import { createServices } from '../services';"],
  [
    'a service imports the composition root',
    'src/domains/blobs/probe.service.ts',
    "import { createApp } from '../../app';",
  ],
  ['the kernel imports the composition root', 'src/kernel/probe.ts', "import type { Services } from '../services';"],
  [
    "rest-compat imports the composition root's builders",
    'rest-compat/routes/probe.ts',
    "import type { Foundation } from '../../src/composition/foundation';",
  ],
  [
    "a service imports the composition root's builders",
    'src/domains/blobs/probe.service.ts',
    "import { storedData } from '../../composition/stored-data';",
  ],
  [
    'the Services catalogue imports a transport',
    'src/service-catalog.ts',
    "import { realmRoutes } from './auth/endpoints';",
  ],
];

const allowed: [string, string, string][] = [
  [
    'a service reads its own entity',
    'src/domains/blobs/probe.service.ts',
    "import { BlobSchema } from './blob.entity';",
  ],
  [
    "a service calls another domain's service",
    'src/domains/device-logs/probe.service.ts',
    "import { assertBlobId } from '../blobs/blobs.service';",
  ],
  [
    'a service uses the kernel and infra',
    'src/domains/blobs/probe.service.ts',
    "import { Upload } from '../../kernel/upload';\nimport type { ContentStore } from '../../infra/content/content-store';",
  ],
  [
    'a types file uses type-graphql, connections and scalars',
    'src/domains/blobs/probe.types.ts',
    "import { Field } from 'type-graphql';\nimport { connectionOf } from '../../graphql/connection';\nimport { UploadScalar } from '../../graphql/upload';\nimport { DateTimeScalar } from '../../graphql/scalars';",
  ],
  [
    "a resolver uses another domain's GraphQL type",
    'src/domains/blobs/probe.resolver.ts',
    "import { User } from '../users/user.types';",
  ],
  [
    'the composition root registers entities',
    'src/entities.ts',
    "import { UserSchema } from './domains/users/user.entity';",
  ],
  [
    "a domain's subfolder reads its own domain's entity",
    'src/domains/clinics/tide/probe.ts',
    "import type { ClinicRecord } from '../clinic.entity';",
  ],
  [
    "auth's core uses the kernel and a domain's service",
    'src/auth/probe.ts',
    "import { RateLimiter } from '../kernel/rate-limiter';\nimport type { UsersService } from '../domains/users/users.service';",
  ],
  [
    "auth's resolver uses type-graphql and connections",
    'src/auth/probe.resolver.ts',
    "import { Resolver } from 'type-graphql';\nimport { connectionOf } from '../graphql/connection';",
  ],
  [
    "auth's endpoints use express, src/http and auth's core",
    'src/auth/endpoints/probe.ts',
    "import express from 'express';\nimport { rateLimit } from '../../http/rate-limit';\nimport type { Realms } from '../realms';",
  ],
  [
    'src/http uses express and the kernel',
    'src/http/probe.ts',
    "import express from 'express';\nimport { RateLimiter } from '../kernel/rate-limiter';",
  ],
  [
    'transports take the Services catalogue',
    'rest-compat/routes/probe.ts',
    "import type { Services } from '../../src/service-catalog';",
  ],
  [
    'src/graphql takes the Services catalogue',
    'src/graphql/probe.ts',
    "import type { Services } from '../service-catalog';",
  ],
  [
    'the composition root imports transports',
    'src/app.ts',
    "import { restRoutes } from '../rest-compat/routes';\nimport { realmsRouter } from './auth/endpoints/realm-router';\nimport type { Services } from './service-catalog';",
  ],
  [
    "the composition root's builders wire domains, auth and infra",
    'src/composition/probe.ts',
    "import { UsersService } from '../domains/users/users.service';\nimport { Realms } from '../auth/realms';\nimport { DatabaseEvents } from '../infra/database/events';\nimport type { Services } from '../service-catalog';",
  ],
  [
    'the Services catalogue names domain and auth services',
    'src/service-catalog.ts',
    "import type { UsersService } from './domains/users/users.service';\nimport type { Realms } from './auth/realms';",
  ],
  [
    'infra uses the kernel and node',
    'src/infra/probe.ts',
    "import http from 'node:http';\nimport { invalid } from '../kernel/errors';",
  ],
];

describe('import boundaries (eslint.config.mjs)', () => {
  it.each(refused)('refuses: %s', async (_name, filePath, code) => {
    expect(await boundaryErrors(filePath, `${code}\n`)).not.toEqual([]);
  });

  it.each(allowed)('allows: %s', async (_name, filePath, code) => {
    expect(await boundaryErrors(filePath, `${code}\n`)).toEqual([]);
  });
});
