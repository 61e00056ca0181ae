// Package runners (SPEC §10): an MCP server started by `npx`, `pnpm dlx`, `bunx`, `uvx` or
// `pipx run`, as Claude Code's docs write them, fetches its package first. In the sandbox it
// may reach that runner's registry — the one the person's own npm or pip configuration names
// (their environment, `~/.npmrc`, `~/.config/pip/pip.conf`), never the folder's, which is the
// repository's to write — and nothing else its entry does not allow.

import { readConfigText } from './read-config-file';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';

export type PackageRunner = 'npm' | 'python';

/** Which registry the command fetches from, when it is a package runner. */
export function packageRunnerOf(command: string, args: readonly string[]): PackageRunner | undefined {
  const program = basename(command).replace(/\.(cmd|exe)$/i, '');
  const first = args[0];
  if (program === 'npx' || program === 'bunx') return 'npm';
  if ((program === 'pnpm' || program === 'yarn') && first === 'dlx') return 'npm';
  if (program === 'npm' && (first === 'exec' || first === 'x')) return 'npm';
  if (program === 'bun' && first === 'x') return 'npm';
  if (program === 'uvx') return 'python';
  if (program === 'pipx' && first === 'run') return 'python';
  if (program === 'uv' && first === 'tool' && args[1] === 'run') return 'python';
  return undefined;
}

/** The hosts a runner's registry is served from, as the person's configuration names it. */
export function registryHosts(runner: PackageRunner, env: NodeJS.ProcessEnv, home: string = homedir()): string[] {
  if (runner === 'npm') {
    const named = env.npm_config_registry ?? env.NPM_CONFIG_REGISTRY ?? iniValue(join(home, '.npmrc'), 'registry');
    return [hostOf(named) ?? 'registry.npmjs.org'];
  }
  const named = env.UV_DEFAULT_INDEX ?? env.UV_INDEX_URL ?? env.PIP_INDEX_URL ?? iniValue(join(home, '.config', 'pip', 'pip.conf'), 'index-url');
  const host = hostOf(named);
  return host !== undefined ? [host] : ['pypi.org', 'files.pythonhosted.org'];
}

/**
 * The runner's registry, as the person's configuration names it, for the server's environment
 * (inside the sandbox the person's ~/.npmrc and pip.conf are not readable): without any
 * credentials in the URL. Nothing when the default registry is meant.
 */
export function registryEnv(runner: PackageRunner, env: NodeJS.ProcessEnv, home: string = homedir()): Record<string, string> {
  const named = runner === 'npm' ? (env.npm_config_registry ?? env.NPM_CONFIG_REGISTRY ?? iniValue(join(home, '.npmrc'), 'registry')) : (env.UV_DEFAULT_INDEX ?? env.UV_INDEX_URL ?? env.PIP_INDEX_URL ?? iniValue(join(home, '.config', 'pip', 'pip.conf'), 'index-url'));
  if (named === undefined || named.trim() === '') return {};
  let url: URL;
  try {
    url = new URL(named.trim());
  } catch {
    return {};
  }
  url.username = '';
  url.password = '';
  return runner === 'npm' ? { npm_config_registry: url.href } : { UV_INDEX_URL: url.href, PIP_INDEX_URL: url.href };
}

function hostOf(url: string | undefined): string | undefined {
  if (url === undefined || url.trim() === '') return undefined;
  try {
    return new URL(url.trim()).hostname || undefined;
  } catch {
    return undefined;
  }
}

/** `key = value` of a small ini-style file (npmrc, pip.conf); absent or unreadable: undefined. */
function iniValue(file: string, key: string): string | undefined {
  let text: string;
  try {
    text = readConfigText(file).slice(0, 64 * 1024);
  } catch {
    return undefined;
  }
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*([A-Za-z0-9_.-]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (match && match[1] === key) return match[2];
  }
  return undefined;
}
