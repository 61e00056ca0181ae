// Plugins for the window (SPEC §15): Settings › Plugins. A plugin is installed or updated only
// as it was shown: `preview` fetches and stages it and answers with what it would load and a
// token; `install` with that token puts exactly that staged copy in place. What loads follows
// through the person's configuration watcher (plugins.json is one of its places).

import { randomUUID } from 'node:crypto';
import { pendingFolderPlugins } from '../../core/config/kinds/plugins';
import { pluginContents } from '../../core/extensions/plugins/parts';
import { readPlugin } from '../../core/extensions/plugins/manifest';
import { PluginStore, type StagedPlugin } from '../../core/extensions/plugins/store';
import { ContractError, type FolderPluginRequestDto, type PluginPreviewDto, type PluginsListDto } from '../contract';

/** A staged copy not confirmed within this long is thrown away. */
const STAGED_FOR_MS = 10 * 60_000;

export class PluginsService {
  private readonly store: PluginStore;
  private readonly staged = new Map<string, { plugin: StagedPlugin; timer: NodeJS.Timeout }>();

  constructor(
    dataDir: string,
    env: NodeJS.ProcessEnv,
    private readonly onChange: () => void,
  ) {
    this.store = new PluginStore(dataDir, env);
  }

  list(): PluginsListDto {
    const problems = new Map(this.store.enabledParts().problems.map((p) => [/^plugin (\S+)/.exec(p)?.[1] ?? '', p]));
    return {
      plugins: this.store.plugins().map((p) => {
        const parts = readPlugin(this.store.installedDir(p.name));
        const problem = 'problem' in parts ? parts.problem : problems.get(p.name);
        return {
          name: p.name,
          ...(p.version ? { version: p.version } : {}),
          marketplace: p.marketplace,
          enabled: p.enabled,
          ...('problem' in parts ? {} : { contents: pick(pluginContents(parts)) }),
          ...(problem ? { problem } : {}),
        };
      }),
      marketplaces: this.store.marketplaces().map((m) => ({
        name: m.name,
        source: m.source,
        plugins: m.plugins.map((p) => ({ name: p.name, ...(p.description ? { description: p.description } : {}) })),
        ...(m.problem ? { problem: m.problem } : {}),
      })),
    };
  }

  /** What the folder's (real path) settings ask for and is not installed, for its trust question to offer. */
  folderRequests(folder: string): FolderPluginRequestDto[] {
    return pendingFolderPlugins(folder, this.store);
  }

  async addMarketplace(source: string): Promise<PluginsListDto> {
    await this.guard(() => this.store.addMarketplace(source));
    return this.changed();
  }

  removeMarketplace(name: string): Promise<PluginsListDto> {
    return this.guard(() => this.store.removeMarketplace(name)).then(() => this.changed());
  }

  async preview(spec: string): Promise<PluginPreviewDto> {
    return this.stage(await this.guard(() => this.store.stageFromMarketplace(spec)), undefined);
  }

  async previewUpdate(name: string): Promise<PluginPreviewDto> {
    const current = this.store.plugins().find((p) => p.name === name);
    return this.stage(await this.guard(() => this.store.stageUpdate(name)), current?.digest);
  }

  async install(token: string): Promise<PluginsListDto> {
    const held = this.staged.get(token);
    if (held === undefined) throw new ContractError('That install was not confirmed in time or was already done; look again.', 'bad_request');
    this.forget(token);
    await this.guard(() => this.store.install(held.plugin));
    return this.changed();
  }

  cancel(token: string): Record<string, never> {
    const held = this.staged.get(token);
    if (held !== undefined) {
      this.forget(token);
      this.store.discard(held.plugin);
    }
    return {};
  }

  setEnabled(name: string, enabled: boolean): Promise<PluginsListDto> {
    return this.guard(() => this.store.setEnabled(name, enabled)).then(() => this.changed());
  }

  remove(name: string): Promise<PluginsListDto> {
    return this.guard(() => this.store.remove(name)).then(() => this.changed());
  }

  close(): void {
    for (const token of [...this.staged.keys()]) this.cancel(token);
  }

  private stage(plugin: StagedPlugin, currentDigest: string | undefined): PluginPreviewDto {
    const token = randomUUID();
    const timer = setTimeout(() => this.cancel(token), STAGED_FOR_MS);
    timer.unref();
    this.staged.set(token, { plugin, timer });
    return { token, name: plugin.parts.name, ...(plugin.parts.version ? { version: plugin.parts.version } : {}), contents: pick(pluginContents(plugin.parts)), upToDate: plugin.digest === currentDigest };
  }

  private forget(token: string): void {
    const held = this.staged.get(token);
    if (held) clearTimeout(held.timer);
    this.staged.delete(token);
  }

  private changed(): PluginsListDto {
    this.onChange();
    return this.list();
  }

  /** A plugin's own error (a bad manifest, git failing) is a readable error for the window. */
  private async guard<T>(work: () => T | Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw new ContractError(err instanceof Error ? err.message : String(err), 'bad_request');
    }
  }
}

function pick(contents: ReturnType<typeof pluginContents>): PluginPreviewDto['contents'] {
  return { servers: contents.servers, hooks: contents.hooks, skills: contents.skills, commands: contents.commands, agents: contents.agents };
}
