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
