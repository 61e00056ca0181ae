#!/usr/bin/env node
// `npm run build`'s native step: the programs of src-main/**/native/*.c, compiled into
// out/native/ (Linux only: the write layer's overlay-exec, the sandbox's port-relay). A C
// compiler is already needed on Linux to install node-pty. Linked statically where the C
// library allows it (no dependency on the build machine's glibc in a packaged app, and a
// faster start), else dynamically.
// Rebuilt only when the source is newer than the program.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = path.join(root, 'out', 'native');
const PROGRAMS = [
  { name: 'overlay-exec', source: 'src-main/core/sandbox/native/overlay-exec.c' },
  { name: 'port-relay', source: 'src-main/core/sandbox/native/port-relay.c' },
];
const FLAGS = ['-O2', '-std=c11', '-Wall', '-Wextra', '-Werror', '-s'];

export function buildNative({ quiet = false } = {}) {
  if (process.platform !== 'linux') return;
  mkdirSync(outDir, { recursive: true });
  const cc = process.env.CC || 'cc';
  for (const { name, source } of PROGRAMS) {
    const src = path.join(root, source);
    const program = path.join(outDir, name);
    if (existsSync(program) && statSync(program).mtimeMs >= statSync(src).mtimeMs) continue;
    const temp = `${program}.${process.pid}.tmp`;
    let last;
    for (const link of [['-static'], []]) {
      last = spawnSync(cc, [...FLAGS, ...link, '-o', temp, src], { encoding: 'utf8' });
      if (last.status === 0) break;
    }
    if (last.status !== 0) {
      const why = last.error ? `${cc}: ${last.error.message}` : last.stderr.trim();
      throw new Error(`could not compile ${source} (a C compiler is needed on Linux, as for node-pty; set CC to use another):\n${why}`);
    }
    renameSync(temp, program);
    if (!quiet) console.log(`built out/native/${name}`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    buildNative();
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 1;
  }
}
