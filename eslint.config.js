import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', '.bench/**', 'test-results/**'] },
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
    // The harness must stay free of Electron and UI code so it runs in plain Node and tests.
    files: ['src-main/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['electron', 'electron/*'], message: 'core/ must not import Electron' },
          { group: ['**/app/**', '**/host/**', '**/cli/**', '**/src-renderer/**'], message: 'core/ must not import app, host, cli or renderer code' },
        ],
      }],
    },
  },
  {
    files: ['src-main/app/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['electron', 'electron/*'], message: 'app/ services are transport-agnostic' },
          { group: ['**/host/**', '**/cli/**', '**/src-renderer/**'], message: 'app/ must not import host, cli or renderer code' },
        ],
      }],
    },
  },
);
