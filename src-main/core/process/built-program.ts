// Where a program of Deepdesk's own build is (`npm run build` compiles src-main/**/native/*.c
// into out/native/, scripts/build-native.mjs): out/native/ of the package this code runs from
// (the sources under test, out/main or out/main/chunks), outside the asar archive in a packaged
// app (a program inside it cannot be executed). Looked for in that package only, never in the
// folders above it.

import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { realPathOf } from '../fs/real-path';

/** `…/app.asar/…` → `…/app.asar.unpacked/…`; other paths unchanged. */
export function outsideAsar(file: string): string {
  return file.replace(/\.asar(?=[\\/])/, '.asar.unpacked');
}

let packageFolder: string | undefined;

/** Code bundled outside its package (a test's stand-in process) names the package whose programs it runs. */
export function useProgramsOf(folder: string): void {
  packageFolder = folder;
}

/** The folder of the package `from` lies in (the nearest with a package.json), or undefined. */
function packageRoot(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dir === dirname(dir)) return undefined;
  }
}

/** out/native/`name` of this build, executable; undefined when it was not built. */
export function builtProgram(name: string, from: string = packageFolder ?? import.meta.dirname): string | undefined {
  const dir = packageRoot(from);
  if (dir === undefined) return undefined;
  const file = outsideAsar(join(dir, 'out', 'native', name));
  try {
    if (!statSync(file).isFile()) return undefined;
    accessSync(file, constants.X_OK);
    return file;
  } catch {
    return undefined;
  }
}

/**
 * What Deepdesk itself executes or loads outside any sandbox from its install (SPEC §7): its
 * build (`out/`: the write layer's program, the code it loads lazily), its launcher, its
 * resources, its package.json (how Node loads it), its dependencies (ripgrep, node-pty, the
 * agents' SDKs) — the node_modules folders above it too, where it is installed as a
 * dependency of a project — and the runtime itself. The sandbox keeps these read-only where
 * a folder it writes holds them (a project with Deepdesk in its node_modules, a Deepdesk
 * checkout opened as a project).
 */
export function ownInstallPaths(from: string = packageFolder ?? import.meta.dirname): readonly string[] {
  const known = installPaths.get(from);
  if (known !== undefined) return known;
  const root = packageRoot(from);
  const paths = root === undefined ? [] : ['out', 'bin', 'resources', 'node_modules', 'package.json'].map((name) => join(root, name));
  for (let dir = root ?? from; dir !== dirname(dir); dir = dirname(dir)) if (basename(dir) === 'node_modules') paths.push(dir);
  paths.push(process.execPath);
  const real = [...new Set(paths.map(realPathOf))];
  installPaths.set(from, real);
  return real;
}

/** Per package folder: the install does not move while Deepdesk runs. */
const installPaths = new Map<string, readonly string[]>();
