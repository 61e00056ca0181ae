import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// One way to start a process (core/process/spawn.ts): its registry, kill and environment
// rules hold only if nothing else imports the spawning modules (types are fine).
const SPAWNING = [
  { name: 'node:child_process', message: 'start processes through core/process/spawn.ts', allowTypeImports: true },
  { name: 'child_process', message: 'start processes through core/process/spawn.ts', allowTypeImports: true },
  { name: 'node-pty', message: 'start processes through core/process/spawn.ts', allowTypeImports: true },
];
const LAYERS = {
  core: [
    { group: ['electron', 'electron/*'], message: 'core/ must not import Electron' },
    { group: ['**/app/**', '**/clients/**', '**/cli/**', '**/src-renderer/**'], message: 'core/ must not import app, clients, cli or renderer code' },
  ],
  app: [
    { group: ['electron', 'electron/*'], message: 'app/ services are transport-agnostic' },
    { group: ['**/clients/**', '**/cli/**', '**/src-renderer/**'], message: 'app/ must not import clients, cli or renderer code' },
  ],
  // The window imports only the contract (and what it re-exports): never core, app or host code.
  renderer: [{ regex: 'src-main/(?!app/contract(?:/|$))', message: 'the window imports only src-main/app/contract' }],
  browser: [{ group: ['electron', 'electron/*', 'node:*'], message: 'the window runs in a browser' }],
};
const restricted = (patterns, spawning = true) => ({ '@typescript-eslint/no-restricted-imports': ['error', { paths: spawning ? SPAWNING : [], patterns }] });
/** Tests, fixtures and test servers start what they need themselves. */
const TEST_FILES = ['**/*.test.ts', '**/*.test-support.ts', '**/testing/**', '**/__fixtures__/**', 'src-main/core/containment/**'];

// core's floor plan, bottom first: a folder imports only the folders below it (docs/development.md).
export const CORE_FLOORS = ['fs', 'text', 'media', 'process', 'models', 'spend', 'git', 'config', 'trust', 'sandbox', 'sandbox-providers', 'backends', 'memories', 'checkpoints', 'telemetry', 'tools', 'extensions', 'goals', 'agent', 'acp-client', 'containment'];
/** Types a folder may still take from above (a value import from there stays an error). */
export const TYPES_FROM_ABOVE = {
  media: ['models'],
  models: ['tools'],
  process: ['sandbox', 'sandbox-providers', 'backends'],
  git: ['sandbox'],
  config: ['agent', 'extensions'],
  backends: ['extensions'],
  telemetry: ['agent'],
  tools: ['agent'],
  extensions: ['agent'],
};
/** Values from above: config's kinds still call the extensions' own walkers (the registry is to own the walk). */
export const VALUES_FROM_ABOVE = { 'config/kinds': ['extensions'] };
const floorPatterns = (floor, allowed = []) => {
  const above = CORE_FLOORS.slice(CORE_FLOORS.indexOf(floor) + 1).filter((f) => !allowed.includes(f));
  const types = TYPES_FROM_ABOVE[floor] ?? [];
  const rule = (folders, allowTypeImports) => ({
    group: folders.map((f) => `../**/${f}/**`),
    message: allowTypeImports
      ? `core/${floor} takes only types from ${folders.join(', ')}, above it: move a shared value down (docs/development.md)`
      : `core/${floor} imports only the core folders below it: move what both need down (docs/development.md)`,
    allowTypeImports,
  });
  const typesOnly = above.filter((f) => types.includes(f));
  const all = above.filter((f) => !types.includes(f));
  return [...(all.length ? [rule(all, false)] : []), ...(typesOnly.length ? [rule(typesOnly, true)] : [])];
};
const SPAWN_MODULES = ['src-main/core/process/spawn.ts', 'src-main/core/process/spawn-pty.ts'];
const floorBlocks = CORE_FLOORS.flatMap((floor) => {
  const nested = Object.keys(VALUES_FROM_ABOVE).filter((k) => k.startsWith(floor + '/'));
  const block = (files, ignores, patterns, spawning) => ({ files, ignores, rules: restricted([...LAYERS.core, ...patterns], spawning) });
  return [
    block([`src-main/core/${floor}/**/*.ts`], [...TEST_FILES, ...SPAWN_MODULES, ...nested.map((k) => `src-main/core/${k}/**`)], floorPatterns(floor), true),
    ...nested.map((k) => block([`src-main/core/${k}/**/*.ts`], TEST_FILES, floorPatterns(floor, VALUES_FROM_ABOVE[k]), true)),
    ...(floor === 'process' ? [block(SPAWN_MODULES, [], floorPatterns(floor), false)] : []),
  ];
});

// app's floor plan, bottom first: a folder imports only the folders below it (docs/development.md).
// A file at app's root is not allowed: each helper lives in the folder of its floor. The
// protocols the host serves are a floor each above it, in `adapters/` (nothing at its root either).
export const APP_FLOORS = [
  'contract', 'base', 'settings', 'approvals', 'threads', 'usage', 'telemetry', 'memories', 'mcp', 'plugins', 'extensions', 'trust',
  'checkpoints', 'terminal', 'workspace', 'modes', 'commands', 'places', 'worktrees', 'sandboxes', 'agents', 'session', 'window', 'folders', 'host',
  'adapters/acp', 'adapters/agent-protocol',
];
// Anchored on the run of `../` so that `../../core/extensions` is not app's `extensions`; a floor
// inside `adapters/` reaches a sibling as `../<name>` too.
const appFolderRegex = (floor, folders) => {
  const parent = floor.slice(0, floor.lastIndexOf('/') + 1);
  const siblings = parent === '' ? [] : folders.filter((f) => f.startsWith(parent)).map((f) => f.slice(parent.length));
  return `^(\\.\\./)+(${[...folders, ...siblings].join('|')})(/|$)`;
};
const appFloorBlocks = APP_FLOORS.map((floor) => {
  const above = APP_FLOORS.slice(APP_FLOORS.indexOf(floor) + 1);
  const patterns = above.length === 0 ? [] : [{ regex: appFolderRegex(floor, above), message: `app/${floor} imports only the app folders below it: move what both need down (docs/development.md)` }];
  return { files: [`src-main/app/${floor}/**/*.ts`], ignores: TEST_FILES, rules: restricted([...LAYERS.app, ...patterns]) };
});

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', '.bench/**', 'test-results/**', 'test/fixtures/claude-code-corpus/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // A state waited for comes in its own time on a loaded machine: vi.waitFor's 1 s default made
    // that a failure on CI (expect.poll's is 10 s here, vitest.config.ts).
    files: ['**/*.test.ts', '**/*.test-support.ts', 'e2e/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', { selector: "CallExpression[callee.object.name='vi'][callee.property.name='waitFor'][arguments.length<2]", message: 'vi.waitFor gives up after 1 s: use expect.poll, or pass { timeout }' }],
    },
  },
  {
    files: ['src-main/clients/**/*.ts', 'src-main/cli/**/*.ts'],
    ignores: TEST_FILES,
    rules: restricted([]),
  },
  {
    // The harness must stay free of Electron and UI code so it runs in plain Node and tests.
    files: ['src-main/core/**/*.ts'],
    rules: restricted(LAYERS.core, false),
  },
  ...floorBlocks,
  {
    files: ['src-main/app/**/*.ts'],
    rules: restricted(LAYERS.app, false),
  },
  {
    files: ['src-main/app/**/*.ts'],
    ignores: TEST_FILES,
    rules: restricted(LAYERS.app),
  },
  ...appFloorBlocks,
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    rules: restricted(LAYERS.renderer, false),
  },
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    ignores: TEST_FILES,
    rules: restricted([...LAYERS.renderer, ...LAYERS.browser], false),
  },
);
