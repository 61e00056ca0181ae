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
    { group: ['**/app/**', '**/host/**', '**/cli/**', '**/src-renderer/**'], message: 'core/ must not import app, host, cli or renderer code' },
  ],
  app: [
    { group: ['electron', 'electron/*'], message: 'app/ services are transport-agnostic' },
    { group: ['**/host/**', '**/cli/**', '**/src-renderer/**'], message: 'app/ must not import host, cli or renderer code' },
  ],
};
const restricted = (patterns, spawning = true) => ({ '@typescript-eslint/no-restricted-imports': ['error', { paths: spawning ? SPAWNING : [], patterns }] });
/** Tests, fixtures and test servers start what they need themselves. */
const TEST_FILES = ['**/*.test.ts', '**/*.test-support.ts', '**/testing/**', '**/__fixtures__/**', 'src-main/core/containment/**'];

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
    files: ['src-main/host/**/*.ts', 'src-main/cli/**/*.ts'],
    ignores: TEST_FILES,
    rules: restricted([]),
  },
  {
    // The harness must stay free of Electron and UI code so it runs in plain Node and tests.
    files: ['src-main/core/**/*.ts'],
    rules: restricted(LAYERS.core, false),
  },
  {
    files: ['src-main/core/**/*.ts'],
    ignores: [...TEST_FILES, 'src-main/core/process/spawn.ts', 'src-main/core/process/spawn-pty.ts'],
    rules: restricted(LAYERS.core),
  },
  {
    files: ['src-main/app/**/*.ts'],
    rules: restricted(LAYERS.app, false),
  },
  {
    files: ['src-main/app/**/*.ts'],
    ignores: TEST_FILES,
    rules: restricted(LAYERS.app),
  },
);
