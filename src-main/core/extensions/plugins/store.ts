// Installed plugins and known marketplaces in `<data-dir>/plugins/` (SPEC §15): the state in
// `plugins.json` (0600), installed copies in `installed/<name>/`, cloned marketplaces in
// `marketplaces/<name>/`, fetched with the system git (the person's credentials and config
// apply; nothing fetched runs: git's hooks are off). What the person confirmed is recorded by
// content: a plugin loads only while its copy still gives the confirmed digest.

import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { readConfigText } from '../../config/read-config-file';
import { gitEnv, gitFailure, runGit } from '../../git/run-git';
import { pluginDigest } from './content-digest';
import { readPlugin, type PluginParts } from './manifest';
import { readMarketplace, remoteUrl, type MarketplacePlugin } from './marketplace';
import { isPathBelow, isPathInside } from '../../fs/path-inside';

const GIT_TIMEOUT_MS = 120_000;

const stateSchema = z.object({
  marketplaces: z.record(z.string(), z.object({ source: z.string(), dir: z.string() })).default({}),
  plugins: z
    .record(
      z.string(),
      z.object({ marketplace: z.string().nullable(), source: z.string(), version: z.string().optional(), enabled: z.boolean(), digest: z.string() }),
    )
    .default({}),
});
export type PluginState = z.infer<typeof stateSchema>;
export type InstalledPlugin = PluginState['plugins'][string] & { name: string };

/** A plugin fetched and read, not yet installed: shown to the person, installed once confirmed. */
export interface StagedPlugin {
  parts: PluginParts;
  digest: string;
  marketplace: string | null;
  source: string;
  staged: string;
}

export class PluginError extends Error {}

export function pluginsDir(dataDir: string): string {
  return join(dataDir, 'plugins');
}

export class PluginStore {
  private readonly dir: string;

  constructor(
    dataDir: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.dir = pluginsDir(dataDir);
  }

  state(): PluginState {
    const file = join(this.dir, 'plugins.json');
    if (!existsSync(file)) return { marketplaces: {}, plugins: {} };
    let raw: unknown;
    try {
      raw = JSON.parse(readConfigText(file));
    } catch (err) {
      throw new PluginError(`${file} cannot be read (${err instanceof Error ? err.message : String(err)}); fix or remove it`);
    }
    const parsed = stateSchema.safeParse(raw);
    if (!parsed.success) throw new PluginError(`${file}: ${parsed.error.issues[0]!.path.join('.')}: ${parsed.error.issues[0]!.message}`);
    return parsed.data;
  }

  private save(state: PluginState): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = join(this.dir, 'plugins.json');
    const temp = `${file}.${randomUUID()}.tmp`;
    writeFileSync(temp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, file);
  }

  installedDir(name: string): string {
    return join(this.dir, 'installed', name);
  }

  // ------------------------------------------------------------------ marketplaces

  /** A git URL (cloned) or a local folder (read where it is). */
  async addMarketplace(source: string, signal?: AbortSignal): Promise<{ name: string; plugins: MarketplacePlugin[]; problems: string[] }> {
    const local = localFolder(source);
    let dir: string;
    if (local !== undefined) dir = local;
    else {
      dir = await this.clone(source, join(this.dir, 'marketplaces', `.new-${randomUUID()}`), undefined, signal);
    }
    const market = readMarketplace(dir);
    if ('problem' in market) {
      if (local === undefined) rmSync(dir, { recursive: true, force: true });
      throw new PluginError(market.problem);
    }
    const state = this.state();
    if (local === undefined) {
      const final = join(this.dir, 'marketplaces', market.name);
      rmSync(final, { recursive: true, force: true });
      renameSync(dir, final);
      dir = final;
    }
    state.marketplaces[market.name] = { source, dir };
    this.save(state);
    return { name: market.name, plugins: market.plugins, problems: market.problems };
  }

  marketplaces(): Array<{ name: string; source: string; dir: string; plugins: MarketplacePlugin[]; problem?: string }> {
    return Object.entries(this.state().marketplaces).map(([name, m]) => {
      const market = readMarketplace(m.dir);
      return 'problem' in market ? { name, ...m, plugins: [], problem: market.problem } : { name, ...m, plugins: market.plugins };
    });
  }

  async updateMarketplace(name: string, signal?: AbortSignal): Promise<void> {
    const market = this.state().marketplaces[name];
    if (market === undefined) throw new PluginError(`no marketplace named ${name} (deepdesk plugin marketplace ls)`);
    if (localFolder(market.source) !== undefined) return;
    for (const args of [['fetch', '--quiet', 'origin'], ['reset', '--quiet', '--hard', 'FETCH_HEAD']]) {
      const result = await runGit(args, { cwd: market.dir, env: gitEnv(this.env), timeoutMs: GIT_TIMEOUT_MS, ...(signal ? { signal } : {}) });
      if (result.code !== 0) throw new PluginError(`could not update marketplace ${name}: ${gitFailure(result, GIT_TIMEOUT_MS)}`);
    }
  }

  removeMarketplace(name: string): void {
    const state = this.state();
    const market = state.marketplaces[name];
    if (market === undefined) throw new PluginError(`no marketplace named ${name} (deepdesk plugin marketplace ls)`);
    if (localFolder(market.source) === undefined) rmSync(market.dir, { recursive: true, force: true });
    delete state.marketplaces[name];
    this.save(state);
  }

  // ------------------------------------------------------------------ plugins

  /** `PLUGIN@MARKETPLACE`, fetched and read into a staging folder for the person to see. */
  async stageFromMarketplace(spec: string, signal?: AbortSignal): Promise<StagedPlugin> {
    const at = spec.lastIndexOf('@');
    if (at <= 0) throw new PluginError(`'${spec}' is not PLUGIN@MARKETPLACE`);
    const [pluginName, marketName] = [spec.slice(0, at), spec.slice(at + 1)];
    const market = this.state().marketplaces[marketName];
    if (market === undefined) throw new PluginError(`no marketplace named ${marketName}; add it first: deepdesk plugin marketplace add SOURCE`);
    const read = readMarketplace(market.dir);
    if ('problem' in read) throw new PluginError(read.problem);
    const entry = read.plugins.find((p) => p.name === pluginName);
    if (entry === undefined) throw new PluginError(`marketplace ${marketName} has no plugin ${pluginName} (it has: ${read.plugins.map((p) => p.name).join(', ') || 'none'})`);
    const staging = this.stagingDir();
    if (typeof entry.source === 'string') {
      const from = resolve(market.dir, entry.source);
      if (!isPathInside(realpathSync(market.dir), existsSync(from) ? realpathSync(from) : from)) throw new PluginError(`marketplace ${marketName}: plugin ${pluginName}'s source ${entry.source} leads outside the marketplace`);
      copyPlugin(from, staging);
      return this.staged(staging, marketName, `${pluginName}@${marketName}`);
    }
    const url = remoteUrl(entry.source);
    if (url === undefined) throw new PluginError(`marketplace ${marketName}: plugin ${pluginName}'s source names no repository`);
    const sub = entry.source.source === 'git-subdir' ? entry.source.path : undefined;
    if (sub === undefined) {
      await this.clone(url, staging, entry.source.sha ?? entry.source.ref, signal);
      return this.staged(staging, marketName, `${pluginName}@${marketName}`);
    }
    // A plugin in a folder of a repository: the repository is fetched, the folder is the plugin.
    const whole = await this.clone(url, `${staging}-repo`, entry.source.sha ?? entry.source.ref, signal);
    try {
      const from = resolve(whole, sub);
      if (!isPathBelow(whole, existsSync(from) ? realpathSync(from) : from)) throw new PluginError(`marketplace ${marketName}: plugin ${pluginName}'s path ${sub} is not a folder inside its repository`);
      copyPlugin(from, staging);
    } finally {
      rmSync(whole, { recursive: true, force: true });
    }
    return this.staged(staging, marketName, `${pluginName}@${marketName}`);
  }

  /** A plugin folder or git URL, without a marketplace. */
  async stageFromSource(source: string, signal?: AbortSignal): Promise<StagedPlugin> {
    const staging = this.stagingDir();
    const local = localFolder(source);
    if (local !== undefined) copyPlugin(local, staging);
    else await this.clone(source, staging, undefined, signal);
    return this.staged(staging, null, source);
  }

  private staged(staging: string, marketplace: string | null, source: string): StagedPlugin {
    rmSync(join(staging, '.git'), { recursive: true, force: true });
    const parts = readPlugin(staging);
    if ('problem' in parts) {
      this.discard(staging);
      throw new PluginError(parts.problem);
    }
    const digest = pluginDigest(parts.root);
    if ('problem' in digest) {
      this.discard(staging);
      throw new PluginError(digest.problem);
    }
    return { parts, digest: digest.digest, marketplace, source, staged: staging };
  }

  /** What the person confirmed goes in place (replacing an older copy), enabled. */
  install(staged: StagedPlugin): InstalledPlugin {
    const state = this.state();
    const target = this.installedDir(staged.parts.name);
    mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
    rmSync(target, { recursive: true, force: true });
    renameSync(staged.staged, target);
    const digest = pluginDigest(target);
    if ('problem' in digest || digest.digest !== staged.digest) throw new PluginError(`${staged.parts.name} changed while it was being installed; nothing was installed`);
    const record = { marketplace: staged.marketplace, source: staged.source, ...(staged.parts.version ? { version: staged.parts.version } : {}), enabled: state.plugins[staged.parts.name]?.enabled ?? true, digest: staged.digest };
    state.plugins[staged.parts.name] = record;
    this.save(state);
    return { name: staged.parts.name, ...record };
  }

  discard(staged: string | StagedPlugin): void {
    rmSync(typeof staged === 'string' ? staged : staged.staged, { recursive: true, force: true });
  }

  plugins(): InstalledPlugin[] {
    return Object.entries(this.state().plugins).map(([name, p]) => ({ name, ...p }));
  }

  setEnabled(name: string, enabled: boolean): void {
    const state = this.state();
    const plugin = state.plugins[name];
    if (plugin === undefined) throw new PluginError(`no plugin named ${name} is installed (deepdesk plugin ls)`);
    plugin.enabled = enabled;
    this.save(state);
  }

  remove(name: string): void {
    const state = this.state();
    if (state.plugins[name] === undefined) throw new PluginError(`no plugin named ${name} is installed (deepdesk plugin ls)`);
    rmSync(this.installedDir(name), { recursive: true, force: true });
    delete state.plugins[name];
    this.save(state);
  }

  /** A plugin's source fetched again, for an update: its marketplace (updated first) or its own source. */
  async stageUpdate(name: string, signal?: AbortSignal): Promise<StagedPlugin> {
    const plugin = this.state().plugins[name];
    if (plugin === undefined) throw new PluginError(`no plugin named ${name} is installed (deepdesk plugin ls)`);
    if (plugin.marketplace === null) return this.stageFromSource(plugin.source, signal);
    await this.updateMarketplace(plugin.marketplace, signal);
    return this.stageFromMarketplace(`${name}@${plugin.marketplace}`, signal);
  }

  /** Installed, enabled plugins whose copy is still what was confirmed; one line for each that is not loaded. */
  enabledParts(): { plugins: PluginParts[]; problems: string[] } {
    let state: PluginState;
    try {
      state = this.state();
    } catch (err) {
      return { plugins: [], problems: [err instanceof Error ? err.message : String(err)] };
    }
    const plugins: PluginParts[] = [];
    const problems: string[] = [];
    for (const [name, record] of Object.entries(state.plugins)) {
      if (!record.enabled) continue;
      const dir = this.installedDir(name);
      const digest = pluginDigest(dir);
      if ('problem' in digest) {
        problems.push(`plugin ${name}: ${digest.problem}`);
        continue;
      }
      if (digest.digest !== record.digest) {
        problems.push(`plugin ${name} changed since you confirmed it, so it is not loaded; run 'deepdesk plugin update ${name}' to see it and confirm again`);
        continue;
      }
      const parts = readPlugin(dir);
      if ('problem' in parts) problems.push(`plugin ${name}: ${parts.problem}`);
      else plugins.push(parts);
    }
    return { plugins, problems };
  }

  private stagingDir(): string {
    const dir = join(this.dir, 'staging', randomUUID());
    mkdirSync(dirname(dir), { recursive: true, mode: 0o700 });
    return dir;
  }

  private async clone(url: string, into: string, ref: string | undefined, signal?: AbortSignal): Promise<string> {
    if (url.startsWith('-')) throw new PluginError(`'${url}' is not a git URL`);
    mkdirSync(dirname(into), { recursive: true, mode: 0o700 });
    const options = { cwd: dirname(into), env: gitEnv(this.env), timeoutMs: GIT_TIMEOUT_MS, ...(signal ? { signal } : {}) };
    const cloned = await runGit(['clone', '--quiet', '--no-recurse-submodules', ...(ref === undefined ? ['--depth', '1'] : []), '--', url, into], options);
    if (cloned.code !== 0) {
      rmSync(into, { recursive: true, force: true });
      throw new PluginError(`could not fetch ${url}: ${gitFailure(cloned, GIT_TIMEOUT_MS)}`);
    }
    if (ref !== undefined) {
      const checkout = await runGit(['checkout', '--quiet', '--detach', ref, '--'], { ...options, cwd: into });
      if (checkout.code !== 0) {
        rmSync(into, { recursive: true, force: true });
        throw new PluginError(`could not check out ${ref} of ${url}: ${gitFailure(checkout, GIT_TIMEOUT_MS)}`);
      }
    }
    return into;
  }
}

/** A local folder named by a path (not a URL), real path; undefined for a URL. */
function localFolder(source: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source) || /^[^/]+@[^/:]+:/.test(source)) return undefined;
  const path = resolve(source.startsWith('file:') ? source.slice(5) : source);
  try {
    return statSync(path).isDirectory() ? realpathSync(path) : undefined;
  } catch {
    return undefined;
  }
}

/** A copy of a plugin folder: its links that lead outside it are refused, `.git` is left out. */
function copyPlugin(from: string, to: string): void {
  const root = realpathSync(from);
  cpSync(root, to, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (src) => {
      if (src.split('/').includes('.git')) return false;
      try {
        const target = readlinkSync(src);
        if (!isPathInside(root, resolve(dirname(src), target))) throw new PluginError(`${src} links outside the plugin (${target}); it is not installed`);
      } catch (err) {
        if (err instanceof PluginError) throw err;
      }
      return true;
    },
  });
}

/** The enabled plugins whose copy is what the person confirmed (read at every load). */
export function enabledPluginParts(dataDir: string): { plugins: PluginParts[]; problems: string[] } {
  return new PluginStore(dataDir, {}).enabledParts();
}
