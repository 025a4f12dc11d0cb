import tseslint from 'typescript-eslint';

/**
 * Imports point down (docs/architecture.md): composition root (main, app, service(s), composition,
 * entities, cli) → transports (rest-compat, src/http, src/graphql, src/playground, auth/endpoints,
 * auth/interactions) → the Services catalogue (service-catalog.ts) → domains, auth's core →
 * kernel, infra → config. ESLint's own
 * no-restricted-imports matches each import's specifier (relative paths as written; every file here
 * imports by relative path), one files-block per layer. Later blocks replace the rule's options
 * rather than merging them, so the blocks' files do not overlap and each lists all of its layer's
 * limits. test/contract/import-boundaries.test.ts lints snippets against this file so that an
 * upgrade which silently drops the rule fails a test.
 */
/** Up to a folder: `./` from a file beside it (src/service-catalog.ts), else `../` as often as needed. */
const UP = '(\\./|(\\.\\./)+)';
const TRANSPORTS = `${UP}(graphql|http|playground|auth/endpoints|auth/interactions)(/|$)|(\\.\\./)+rest-compat(/|$)`;
const transport = {
  regex: `^(?:${TRANSPORTS}|express$)`,
  message:
    'Imports point down: a transport (express, src/graphql, src/http, src/playground, rest-compat, auth/endpoints, auth/interactions) is imported only above this layer.',
};
const graphqlPackages = {
  regex: '^(?:graphql|type-graphql|@apollo/.*)$',
  message: 'Only *.types.ts and *.resolver.ts of a domain or of auth speak GraphQL.',
};
const graphqlFolder = { regex: '^(\\.\\./)+graphql(/|$)', message: graphqlPackages.message };
/** A GraphQL face (*.types.ts, *.resolver.ts) may use the schema's shared building blocks, nothing else of a transport. */
const faceTransport = {
  regex: `^(?:(\\.\\./)+graphql/(?!(?:connection|scalars|upload|live)$)|(\\.\\./)+(http|playground)(/|$)|(\\.\\./)+rest-compat(/|$)|(\\.\\./)+auth/(endpoints|interactions)(/|$)|express$|@apollo/.*)`,
  message: transport.message + ' Types and resolvers may use src/graphql/{connection,scalars,upload,live} only.',
};
const compositionRoot = {
  // src/services.ts from src/x/y.ts is `../services`, from rest-compat/routes/ `../../src/services`;
  // src/composition/ holds createServices' builders, as much the root as services.ts itself.
  // src/entities.ts is left out: tests at every layer open the ORM with its list of tables.
  regex: `^${UP}(src/)?(services|app|service|main)$|^${UP}(src/)?(cli|composition)(/|$)`,
  message:
    'Imports point down: the composition root (main, app, service, services, composition, cli) is imported by nothing; transports take the Services catalogue from src/service-catalog.ts.',
};
const authTransports = {
  // From auth's core: `./endpoints/...` (src/auth/x.ts) or `../interactions/...` (src/auth/oidc/x.ts).
  regex: '^(\\./|(\\.\\./)+(auth/)?)(endpoints|interactions)(/|$)',
  message: "Imports point down: auth's core never imports its transports (auth/endpoints, auth/interactions).",
};
/**
 * Another domain's entity, from a file `depth` folders below src/domains/<name>/: a path that climbs
 * out of the domain's folder (depth + 1 times or more) to an entity. `../clinic.entity` from
 * src/domains/clinics/tide/ stays inside its domain; `../../glucose/x.entity` does not.
 */
function otherDomainEntity(depth) {
  return {
    regex: `^(\\.\\./){${depth + 1},}.*\\.entity$`,
    message: "A domain never reads another domain's entities: call that domain's service.",
  };
}
const rule = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

const FACES = ['**/*.types.ts', '**/*.resolver.ts'];
/** A domain's files at each depth below src/domains/<name>/ (the last group: that depth or deeper). */
const DOMAIN_DEPTHS = [
  { depth: 0, files: ['src/domains/*/*.ts'] },
  { depth: 1, files: ['src/domains/*/*/**/*.ts'] },
];
const domainBlocks = DOMAIN_DEPTHS.flatMap(({ depth, files }) => [
  {
    // A domain's services, loaders, entities and models: no transport, no GraphQL, no foreign entities.
    files,
    ignores: FACES,
    rules: rule(transport, graphqlFolder, graphqlPackages, compositionRoot, otherDomainEntity(depth)),
  },
  {
    // A domain's GraphQL face may use type-graphql and the schema's shared building blocks.
    files: files.map((glob) => glob.replace(/\*\.ts$/, '*.{types,resolver}.ts')),
    rules: rule(faceTransport, compositionRoot, otherDomainEntity(depth)),
  },
]);

const AUTH_TRANSPORT_FILES = ['src/auth/endpoints/**', 'src/auth/interactions/**'];
const importBoundaries = [
  {
    // Infrastructure and the kernel know nothing above them.
    files: ['src/infra/**/*.ts', 'src/kernel/**/*.ts'],
    rules: rule(
      {
        regex: '^(\\.\\./)+(domains|auth)(/|$)',
        message:
          'Imports point down: infra and kernel never import a domain or auth (register entities at the composition root).',
      },
      transport,
      { regex: graphqlPackages.regex, message: transport.message },
      compositionRoot,
    ),
  },
  ...domainBlocks,
  {
    // Auth's core (accounts, realms, OIDC, brokering, sessions): no transport, its own included.
    files: ['src/auth/**/*.ts'],
    ignores: [...AUTH_TRANSPORT_FILES, ...FACES],
    rules: rule(transport, graphqlFolder, graphqlPackages, compositionRoot, authTransports),
  },
  {
    // Auth's GraphQL face, like a domain's.
    files: FACES.map((glob) => `src/auth/${glob}`),
    ignores: AUTH_TRANSPORT_FILES,
    rules: rule(faceTransport, compositionRoot, authTransports),
  },
  {
    // The catalogue of what the composition root builds, as types: domains and auth, nothing above.
    files: ['src/service-catalog.ts'],
    rules: rule(transport, compositionRoot),
  },
  {
    // Transports call the domains with what the composition root hands them (src/service-catalog.ts).
    files: [
      'rest-compat/**/*.ts',
      'src/graphql/**/*.ts',
      'src/playground/**/*.ts',
      ...AUTH_TRANSPORT_FILES.map((glob) => `${glob}/*.ts`),
    ],
    rules: rule(compositionRoot),
  },
  {
    // src/http is the edges every transport shares: it knows neither rest-compat nor the playground.
    files: ['src/http/**/*.ts'],
    rules: rule(compositionRoot, {
      regex: '^(\\.\\./)+(rest-compat|playground)(/|$)',
      message:
        'Imports point down: src/http is shared by the transports and imports neither rest-compat nor the playground.',
    }),
  },
];

/**
 * Production files stay readable in one sitting: at most 400 lines a file and 80 a function, blank
 * lines and comments not counted. Tests are left out: a suite's table of cases may run long.
 */
const sizeLimits = {
  files: ['src/**/*.ts', 'rest-compat/**/*.ts', 'migrations/**/*.ts', 'playground/**/*.{ts,tsx}'],
  ignores: ['**/*.test.ts', 'test/**'],
  rules: {
    'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
    'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
  },
};

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
  sizeLimits,
);
