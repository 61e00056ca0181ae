// The desktop app's command line: `deepdesk-desktop [--folder DIR | DIR] [--data-dir DIR]`.
// Chromium and Electron add switches of their own; unknown `-`-prefixed arguments are ignored.

import { resolve } from 'node:path';

export interface DesktopArgs {
  /** Absolute, or null when none was given (the window then asks for one). */
  folder: string | null;
  dataDir: string | undefined;
}

/**
 * The user's arguments: after the executable, and after the app path too when Electron
 * runs an unpackaged app (`electron . …`, where process.defaultApp is true).
 */
export function userArgs(argv: readonly string[], defaultApp: boolean): string[] {
  return argv.slice(defaultApp ? 2 : 1);
}

export function parseDesktopArgs(args: readonly string[], cwd: string): DesktopArgs {
  let folder: string | undefined;
  let dataDir: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (flag === '--folder' || flag === '--data-dir') {
      const value = inline ?? args[i + 1];
      if (inline === undefined) i++;
      if (value === undefined || value === '') continue;
      if (flag === '--folder') folder = value;
      else dataDir = value;
    } else if (arg === '--') {
      continue;
    } else if (!arg.startsWith('-') && folder === undefined && arg !== '') {
      folder = arg;
    }
  }
  return {
    folder: folder === undefined ? null : resolve(cwd, folder),
    dataDir: dataDir === undefined ? undefined : resolve(cwd, dataDir),
  };
}
