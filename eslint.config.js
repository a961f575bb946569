import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import boundaries from 'eslint-plugin-boundaries';
import reactHooks from 'eslint-plugin-react-hooks';

/** The platform's four tiers, lowest first (docs/architecture.md#platform): each imports only its own and lower tiers. */
const PLATFORM = ['foundation', 'core', 'services', 'http'];

/**
 * The layers of docs/architecture.md, enforced. In the platform: the foundation (config, db, util, ratelimit) imports
 * only itself; the core (errors, the serializer, the module and route types) the foundation; events, auth, lists, jobs
 * and versions (the dated API versions' changes, which name routes and events, never a resource) those two; only http imports http. Records import the platform and other records; the resource kit imports
 * both; a resource folder imports those three, and another resource folder only through its index.ts; loyalty's
 * engine is imported by loyalty's API folders and imports none of them; the CLI reaches resources only through the
 * composition root.
 */
const layers = {
  files: ['src/**/*.ts'],
  plugins: { boundaries },
  settings: {
    'boundaries/include': ['src/**/*.ts'],
    'boundaries/elements': [
      { type: 'loyalty-engine', pattern: 'src/resources/loyalty/engine' },
      { type: 'resource', pattern: 'src/resources/*', capture: ['name'] },
      { type: 'records', pattern: 'src/records' },
      { type: 'kit', pattern: 'src/resource-kit' },
      { type: 'cli', pattern: 'src/cli' },
      { type: 'demo', pattern: 'src/demo' },
      { type: 'foundation', pattern: ['src/config', 'src/db', 'src/util', 'src/ratelimit'] },
      { type: 'core', pattern: 'src/core' },
      { type: 'http', pattern: 'src/http' },
      // src/versions is of this tier by name too; said outright, since nothing else marks it as the platform's.
      { type: 'services', pattern: 'src/versions', capture: ['name'] },
      { type: 'services', pattern: 'src/*', capture: ['name'] },
    ],
    // The demo world's well-known ids: a resource's documented examples name them (ResourceModule.examples).
    'boundaries/files': [{ category: 'demo-ids', pattern: 'src/demo/ids.ts' }],
    'import/resolver': { typescript: { alwaysTryTypes: true } },
  },
  rules: {
    'boundaries/dependencies': [
      2,
      {
        default: 'disallow',
        policies: [
          { from: { element: { type: 'foundation' } }, allow: { to: { element: { type: 'foundation' } } } },
          {
            from: { element: { type: 'core' } },
            allow: { to: { element: { types: { anyOf: ['foundation', 'core'] } } } },
          },
          {
            from: { element: { type: 'services' } },
            allow: { to: { element: { types: { anyOf: ['foundation', 'core', 'services'] } } } },
          },
          { from: { element: { type: 'http' } }, allow: { to: { element: { types: { anyOf: PLATFORM } } } } },
          {
            from: { element: { type: 'records' } },
            allow: { to: { element: { types: { anyOf: [...PLATFORM, 'records'] } } } },
          },
          {
            from: { element: { type: 'kit' } },
            allow: { to: { element: { types: { anyOf: [...PLATFORM, 'records'] } } } },
          },
          {
            from: { element: { types: { anyOf: ['resource', 'loyalty-engine'] } } },
            allow: { to: { element: { types: { anyOf: [...PLATFORM, 'records', 'kit'] } } } },
          },
          {
            // A module's documented examples (its index.ts, or examples.ts beside it) name the demo world's records.
            from: { element: { type: 'resource', fileInternalPath: '{index,examples}.ts' } },
            allow: { to: { file: { categories: 'demo-ids' } } },
          },
          {
            from: { element: { type: 'resource' } },
            allow: { to: { element: { type: 'resource', captured: { name: '{{ from.element.captured.name }}' } } } },
          },
          {
            from: { element: { type: 'resource' } },
            allow: { to: { element: { type: 'resource', fileInternalPath: 'index.ts' } } },
          },
          {
            // Not loyalty's own index.ts: it imports the API folders, which import the engine.
            from: { element: { type: 'loyalty-engine' } },
            allow: {
              to: { element: { type: 'resource', captured: { name: '!loyalty' }, fileInternalPath: 'index.ts' } },
            },
          },
          {
            from: { element: { type: 'resource', captured: { name: 'loyalty' } } },
            allow: { to: { element: { type: 'loyalty-engine' } } },
          },
          { from: { element: { type: 'loyalty-engine' } }, allow: { to: { element: { type: 'loyalty-engine' } } } },
          {
            from: { element: { type: 'cli' } },
            allow: { to: { element: { types: { anyOf: [...PLATFORM, 'cli', 'demo'] } } } },
          },
          {
            from: { element: { type: 'demo' } },
            allow: { to: { element: { types: { anyOf: [...PLATFORM, 'demo'] } } } },
          },
        ],
      },
    ],
  },
};

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'coverage/',
      'scratch/',
      '.patron/',
      'clients/typescript/dist/',
      'clients/typescript/src/generated/',
      'dashboard/dist/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Layout is Prettier's (npm run format); lint keeps to correctness.
  prettier,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': 'error',
      eqeqeq: ['error', 'always'],
    },
  },
  layers,
  {
    // More than four positional parameters take an options object: named fields read at the call site.
    files: ['src/**/*.ts', 'bench/**/*.ts'],
    rules: { 'max-params': ['error', 4] },
  },
  {
    // The composition root imports every resource, and the operator's entry (src/operator.ts) reaches into the
    // organization resource; only the CLI may import either (and tests and benchmarks).
    files: ['src/**/*.ts'],
    ignores: ['src/cli/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/compose.js'], message: 'Only src/cli imports the composition root.' },
            { group: ['**/operator.js'], message: 'Only src/cli imports the operator entry (src/operator.ts).' },
          ],
        },
      ],
    },
  },
  {
    // The dashboard runs in the browser (docs/dashboard.md): React's hook rules; text from the API is rendered as
    // text, never as HTML; /v1 is reached through the typed client made in dashboard/src/api only.
    files: ['dashboard/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.flat.recommended.rules,
      'no-restricted-syntax': [
        'error',
        {
          selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']",
          message: 'Render text from the API as text (docs/dashboard.md#safety).',
        },
      ],
    },
  },
  {
    files: ['dashboard/src/**/*.{ts,tsx}'],
    ignores: ['dashboard/src/api/**'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'fetch', message: 'Call the API through useApi() or useDashboardApi() (dashboard/src/api).' },
      ],
    },
  },
  {
    // Tests, benchmarks and the client's examples read loosely typed JSON responses and report to the console.
    files: ['test/**', 'bench/**', 'clients/typescript/test/**', 'clients/typescript/examples/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-console': 'off' },
  },
);
