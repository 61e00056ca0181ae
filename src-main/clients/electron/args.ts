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

/** What a launch hands to the running instance (app.requestSingleInstanceLock's additionalData). */
export interface LaunchData {
  args: string[];
  cwd: string;
}

export function isLaunchData(value: unknown): value is LaunchData {
  if (typeof value !== 'object' || value === null) return false;
  const { args, cwd } = value as Record<string, unknown>;
  return Array.isArray(args) && args.every((a) => typeof a === 'string') && typeof cwd === 'string';
}

/**
 * The arguments of a second launch, as the running instance hears them ('second-instance'):
 * the data the launch sent when it is there (Chromium may add and reorder switches in argv),
 * else its argv and working directory.
 */
export function secondLaunchArgs(argv: readonly string[], workingDirectory: string, additionalData: unknown, defaultApp: boolean): DesktopArgs {
  if (isLaunchData(additionalData)) return parseDesktopArgs(additionalData.args, additionalData.cwd);
  return parseDesktopArgs(userArgs(argv, defaultApp), workingDirectory);
}
