#!/usr/bin/env node
// `npm run bench`: bundles the TypeScript benchmarks of scripts/bench/ with rolldown (the
// bundler vite ships) into .bench/build/, packages left external, then runs them with this
// Node. Not part of `npm test`. Options are passed through; see scripts/bench/options.ts.

import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';
import { buildNative } from './build-native.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = path.join(root, '.bench', 'build');
const entries = {
  main: 'scripts/bench/main.ts',
  'read-child': 'scripts/bench/read-child.ts',
};

// The sandbox is measured as the app runs it, with its write layer: without out/native (a
// checkout never built) every sandboxed row would measure the fallback without a layer.
buildNative({ quiet: true });
rmSync(outDir, { recursive: true, force: true });
await build({
  cwd: root,
  input: Object.fromEntries(Object.entries(entries).map(([name, file]) => [name, path.join(root, file)])),
  platform: 'node',
  // Bare imports (node: builtins, packages) stay imports: native modules and the
  // reference package load from node_modules exactly as they are installed.
  external: (id) => !id.startsWith('.') && !path.isAbsolute(id) && !id.startsWith('\0'),
  logLevel: 'warn',
  output: { dir: outDir, format: 'esm', entryFileNames: '[name].mjs', chunkFileNames: '[name]-[hash].mjs', sourcemap: true },
});

const child = spawn(process.execPath, ['--enable-source-maps', path.join(outDir, 'main.mjs'), ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
});
const forward = (signal) => child.kill(signal);
process.on('SIGINT', forward);
process.on('SIGTERM', forward);
child.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
});
