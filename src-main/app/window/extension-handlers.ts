// Settings' regions of what extends the agent (SPEC §9–§11, §15): MCP servers, skills, hooks,
// subagents, the rules of Claude Code's files, plugins, and the folder's trust question.

import type { HandlersFor, WindowServices } from './handlers';

export function extensionHandlers(w: WindowServices): HandlersFor<'mcp.'> & HandlersFor<'skills.'> & HandlersFor<'hooks.'> & HandlersFor<'agents.'> & HandlersFor<'rules.'> & HandlersFor<'plugins.'> & HandlersFor<'trust.'> {
  const { settings } = w.session;
  const { mcp, hub: gatedHub } = w.session.extensions;
  const extensions = w.session.extensions.extensions;
  const { plugins, folderTrust } = w;
  return {
    'mcp.list': async () => mcp.list(),
    'mcp.save': ({ name, entry, previousName }) => mcp.save(name, entry, previousName),
    'mcp.remove': ({ name }) => mcp.remove(name),
    'mcp.setEnabled': ({ name, enabled }) => mcp.setEnabled(name, enabled),
    'mcp.signIn': ({ name }) => mcp.signIn(name),
    'mcp.restart': ({ name }) => mcp.restart(name),
    'mcp.resources': async ({ query }) => {
      const words = (query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
      return gatedHub
        .resources()
        .filter((r) => words.every((w) => `${r.server}:${r.uri} ${r.name}`.toLowerCase().includes(w)))
        .slice(0, 50)
        .map((r) => ({ server: r.server, uri: r.uri, name: r.name, ...(r.description !== undefined ? { description: r.description } : {}) }));
    },
    'mcp.prompts': async () =>
      gatedHub.prompts().map((p) => ({ command: `/${p.qualifiedName}`, ...(p.description !== undefined ? { description: p.description } : {}), arguments: p.arguments.map((a) => ({ name: a.name, required: a.required })) })),
    'skills.list': async () => extensions.skillsList(),
    'skills.setEnabled': async ({ name, enabled }) => extensions.setSkillEnabled(name, enabled),
    'hooks.list': async () => extensions.hooksList(),
    'agents.list': async () => extensions.agentsList(settings.raw().subagents),
    'rules.fromFiles': async () => {
      const claude = extensions.claudeRules();
      return { rules: claude.listed, problems: claude.problems };
    },
    'plugins.list': async () => plugins.list(),
    'plugins.addMarketplace': async ({ source }) => plugins.addMarketplace(source),
    'plugins.removeMarketplace': async ({ name }) => plugins.removeMarketplace(name),
    'plugins.preview': async ({ spec }) => plugins.preview(spec),
    'plugins.previewUpdate': async ({ name }) => plugins.previewUpdate(name),
    'plugins.install': async ({ token }) => plugins.install(token),
    'plugins.cancel': async ({ token }) => plugins.cancel(token),
    'plugins.setEnabled': async ({ name, enabled }) => plugins.setEnabled(name, enabled),
    'plugins.remove': async ({ name }) => plugins.remove(name),
    'hooks.setEnabled': async ({ id, enabled }) => extensions.setHookEnabled(id, enabled),
    'trust.get': async () => {
      await folderTrust.refresh();
      return folderTrust.state();
    },
    'trust.grant': ({ digest, keys }) => folderTrust.grant(digest, keys),
    'trust.dismiss': async () => folderTrust.dismiss(),
  };
}
