// Which ripgrep grep and glob run: the binary that ships with the app (@vscode/ripgrep's
// package for this platform, as VS Code bundles it), else an `rg` on PATH, else none, and
// the Node search does the work. A packaged app keeps the binary in app.asar.unpacked: a
// program inside the asar archive cannot be executed.

import fsp from 'node:fs/promises';
import fs from 'node:fs';
import path from 'node:path';
import { outsideAsar } from '../../process/built-program';

let chosen: Promise<string | null> | undefined;

/** The ripgrep to use, decided once per process; null means the Node search. */
export function findRipgrep(): Promise<string | null> {
  chosen ??= (async () => (await bundledRipgrep()) ?? (await ripgrepOnPath()))();
  return chosen;
}

/** The binary of @vscode/ripgrep for this platform, or null where none ships. */
export async function bundledRipgrep(): Promise<string | null> {
  let rgPath: string;
  try {
    // Throws when the optional per-platform package was not installed (no build for this
    // platform). Named through a variable so that bundlers leave it to Node at run time.
    const pkg = '@vscode/ripgrep';
    ({ rgPath } = (await import(/* @vite-ignore */ pkg)) as { rgPath: string });
  } catch {
    return null;
  }
  const file = outsideAsar(rgPath);
  return (await isExecutable(file)) ? file : null;
}

/** The first executable `rg` on PATH. */
export async function ripgrepOnPath(pathVariable = process.env.PATH ?? ''): Promise<string | null> {
  const exe = process.platform === 'win32' ? 'rg.exe' : 'rg';
  for (const dir of pathVariable.split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, exe);
    if (await isExecutable(candidate)) return candidate;
  }
  return null;
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    if (!(await fsp.stat(file)).isFile()) return false;
    await fsp.access(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
