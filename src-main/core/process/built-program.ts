// Where a program of Deepdesk's own build is (`npm run build` compiles src-main/**/native/*.c
// into out/native/, scripts/build-native.mjs): out/native/ of the package this code runs from
// (the sources under test, out/main or out/main/chunks), outside the asar archive in a packaged
// app (a program inside it cannot be executed). Looked for in that package only, never in the
// folders above it.

import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** `…/app.asar/…` → `…/app.asar.unpacked/…`; other paths unchanged. */
export function outsideAsar(file: string): string {
  return file.replace(/\.asar(?=[\\/])/, '.asar.unpacked');
}

let packageFolder: string | undefined;

/** Code bundled outside its package (a test's stand-in process) names the package whose programs it runs. */
export function useProgramsOf(folder: string): void {
  packageFolder = folder;
}

/** out/native/`name` of this build, executable; undefined when it was not built. */
export function builtProgram(name: string, from: string = packageFolder ?? import.meta.dirname): string | undefined {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    if (dir === dirname(dir)) return undefined;
    dir = dirname(dir);
  }
  const file = outsideAsar(join(dir, 'out', 'native', name));
  try {
    if (!statSync(file).isFile()) return undefined;
    accessSync(file, constants.X_OK);
    return file;
  } catch {
    return undefined;
  }
}
