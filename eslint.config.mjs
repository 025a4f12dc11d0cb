import tseslint from 'typescript-eslint';

/**
 * Imports point down (docs/architecture.md): composition root (main, app, service(s), entities,
 * cli) → transports (rest-compat, src/http, src/graphql, auth/endpoints) → domains, auth →
 * kernel, infra → config. ESLint's own no-restricted-imports matches each import's specifier
 * (relative paths as written; every file here imports by relative path), one files-block per layer.
 * Later blocks replace the rule's options rather than merging them, so each block lists all of
 * its layer's limits. test/contract/import-boundaries.test.ts lints snippets against this file so that an
 * upgrade which silently drops the rule fails a test.
 */
const TRANSPORTS = '(\\.\\./)+(graphql|http)(/|$)|(\\.\\./)+rest-compat(/|$)';
const transport = {
  regex: `^(?:${TRANSPORTS}|express$)`,
  message:
    'Imports point down: a transport (express, src/graphql, src/http, rest-compat) is imported only above this layer.',
};
const otherDomainEntity = {
  // From src/domains/<name>/, a sibling folder's entity (`../users/user.entity`) or any path through domains/.
  regex: '^\\.\\./(?:\\.\\./domains/)?[^./][^/]*/(?:.*/)?[^/]+\\.entity$',
  message: "A domain never reads another domain's entities: call that domain's service.",
};
const graphqlPackages = {
  regex: '^(?:graphql|type-graphql|@apollo/.*)$',
  message: 'Only *.types.ts and *.resolver.ts of a domain speak GraphQL.',
};

const importBoundaries = [
  {
    // Infrastructure and the kernel know nothing above them.
    files: ['src/infra/**/*.ts', 'src/kernel/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(domains|auth)(/|$)',
              message:
                'Imports point down: infra and kernel never import a domain or auth (register entities at the composition root).',
            },
            transport,
            { regex: '^(?:graphql|type-graphql|@apollo/.*)$', message: transport.message },
          ],
        },
      ],
    },
  },
  {
    // A domain's services, loaders, entities and models: no transport, no GraphQL, no foreign entities.
    files: ['src/domains/**/*.ts'],
    ignores: ['src/domains/**/*.types.ts', 'src/domains/**/*.resolver.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            transport,
            { regex: '^(\\.\\./)+graphql(/|$)', message: graphqlPackages.message },
            graphqlPackages,
            otherDomainEntity,
          ],
        },
      ],
    },
  },
  {
    // A domain's GraphQL face (*.types.ts, *.resolver.ts) may use type-graphql and the schema's
    // shared building blocks: connections, scalars and the Upload scalar. Nothing else of a transport.
    files: ['src/domains/**/*.types.ts', 'src/domains/**/*.resolver.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex:
                '^(?:(\\.\\./)+graphql/(?!(?:connection|scalars|upload|live)$)|(\\.\\./)+http(/|$)|(\\.\\./)+rest-compat(/|$)|express$|@apollo/.*)',
              message:
                transport.message + ' Types and resolvers may use src/graphql/{connection,scalars,upload,live} only.',
            },
            otherDomainEntity,
          ],
        },
      ],
    },
  },
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'test-output/', '.islet/'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-unsafe-function-type': 'off',
      'no-duplicate-imports': 'error',
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    // End-to-end suites read loosely-typed JSON replies.
    files: ['test/**', '**/*.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  ...importBoundaries,
);
