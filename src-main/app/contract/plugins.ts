// The contract's shapes for plugins and marketplaces (SPEC §15): Settings › Plugins lists the
// installed plugins with their parts, adds marketplaces, and installs or updates a plugin only
// after showing what it would load (`plugins.preview` stages it, `plugins.install` confirms
// exactly that staged copy). Renderer-safe: zod only.
import { z } from 'zod';

export const pluginContentsSchema = z.object({
  servers: z.array(z.string()),
  hooks: z.array(z.string()),
  skills: z.array(z.string()),
  commands: z.array(z.string()),
  agents: z.array(z.string()),
});

export type PluginContentsDto = z.infer<typeof pluginContentsSchema>;

/** A plugin's parts counted, as Settings › Plugins and `deepdesk plugin ls` show them: `1 skill, 2 commands, 0 agents, …`. */
export function pluginPartCounts(c: PluginContentsDto): string {
  const count = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;
  return [count(c.skills.length, 'skill'), count(c.commands.length, 'command'), count(c.agents.length, 'agent'), count(c.hooks.length, 'hook'), count(c.servers.length, 'server')].join(', ');
}

export const pluginsListSchema = z.object({
  plugins: z.array(
    z.object({
      name: z.string(),
      version: z.string().optional(),
      marketplace: z.string().nullable(),
      enabled: z.boolean(),
      contents: pluginContentsSchema.optional(),
      /** Why it does not load (changed since confirmed, unreadable). */
      problem: z.string().optional(),
    }),
  ),
  marketplaces: z.array(z.object({ name: z.string(), source: z.string(), plugins: z.array(z.object({ name: z.string(), description: z.string().optional() })), problem: z.string().optional() })),
});
export type PluginsListDto = z.infer<typeof pluginsListSchema>;

/**
 * A plugin the folder's `.claude/settings.json` turns on (`enabledPlugins`) and that is not
 * installed: the trust question offers it, its marketplace first when that is not added yet
 * (`marketplaceSource` from the folder's `extraKnownMarketplaces`), each on its own confirmation.
 */
export const folderPluginRequestSchema = z.object({
  /** `plugin@marketplace`: `plugins.preview` takes it. */
  spec: z.string(),
  plugin: z.string(),
  marketplace: z.string(),
  /** The settings file that asks for it, relative to the folder. */
  file: z.string(),
  marketplaceSource: z.string().optional(),
  marketplaceAdded: z.boolean(),
});
export type FolderPluginRequestDto = z.infer<typeof folderPluginRequestSchema>;

/** A staged plugin: what it would load, and the token that installs exactly that copy. */
export const pluginPreviewSchema = z.object({ token: z.string(), name: z.string(), version: z.string().optional(), contents: pluginContentsSchema, upToDate: z.boolean() });
export type PluginPreviewDto = z.infer<typeof pluginPreviewSchema>;

export const pluginMethods = {
  'plugins.list': { params: z.object({}).strict(), result: pluginsListSchema },
  'plugins.addMarketplace': { params: z.object({ source: z.string().min(1) }), result: pluginsListSchema },
  'plugins.removeMarketplace': { params: z.object({ name: z.string().min(1) }), result: pluginsListSchema },
  /** `spec`: PLUGIN@MARKETPLACE. */
  'plugins.preview': { params: z.object({ spec: z.string().min(1) }), result: pluginPreviewSchema },
  'plugins.previewUpdate': { params: z.object({ name: z.string().min(1) }), result: pluginPreviewSchema },
  'plugins.install': { params: z.object({ token: z.string().min(1) }), result: pluginsListSchema },
  'plugins.cancel': { params: z.object({ token: z.string().min(1) }), result: z.object({}) },
  'plugins.setEnabled': { params: z.object({ name: z.string().min(1), enabled: z.boolean() }), result: pluginsListSchema },
  'plugins.remove': { params: z.object({ name: z.string().min(1) }), result: pluginsListSchema },
} as const;

export const pluginEvents = {
  /** Plugins or marketplaces were added, changed or removed. */
  'plugins.changed': z.object({}),
} as const;
