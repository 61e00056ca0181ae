// The configuration a folder is worked on with (SPEC §9, §10): the person's MCP servers, the
// folder's own ones that are trusted (per entry content), and `--mcp-config` files, merged by
// name (later wins). The one call the window's app, `run`, `serve` and `acp` make when a
// folder opens; what did not load is returned, never thrown.

import { resolve } from 'node:path';
import { entryVariables, expandServerEntry, mergeServers, readMcpConfigFile } from '../../config/mcp-config';
import { problemLine, type ConfigSource, type McpServerConfig } from '../../config/mcp-config-types';
import { enabledPluginParts } from '../plugins/store';
import { projectMcpFile, projectServerItems, userMcpFile } from '../../config/kinds/mcp';
import { trustReport } from '../../trust/report';
import { TrustStore } from '../../trust/store';
import { realPathOf } from '../../fs/real-path';
import type { TrustGate, TrustReport } from '../../trust/types';

export interface ProjectConfigurationOptions {
  folder: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** `--mcp-config FILE`s, in order (relative to the current directory). */
  mcpConfigFiles?: readonly string[];
  /** `deepdesk run --trust`: the folder's untrusted entries load for this run, and nothing is recorded. */
  trustForRun?: boolean;
  /** The app's store (or a session's trust on top of it); without one, trust.json is opened for this call. */
  store?: TrustGate;
}

export interface ProjectConfiguration {
  /** What runs: the person's, the folder's trusted ones and `--mcp-config`'s, merged by name (disabled ones included, marked). */
  servers: McpServerConfig[];
  /** The folder's entries that are not trusted, as written (not expanded), for listing as `Not trusted`; none shares a name with `servers`. */
  untrusted: McpServerConfig[];
  /** One line per MCP file or entry that could not be used (`FILE: FIELD: MESSAGE`). */
  problems: string[];
  /** The folder's trust report; with `trustForRun` its `untrusted` is empty (everything loads, so no notice is due). */
  report: TrustReport;
}

export async function loadProjectConfiguration(options: ProjectConfigurationOptions): Promise<ProjectConfiguration> {
  const { env } = options;
  const storeProblems: string[] = [];
  const store = options.store ?? new TrustStore(options.dataDir, { onProblem: (problem) => storeProblems.push(problem.message) });
  try {
    const folder = realPathOf(options.folder);
    const report = await trustReport(folder, store, env);
    const person = readMcpConfigFile(userMcpFile(options.dataDir), 'user', env);
    // Enabled, confirmed plugins' servers are the person's; `${CLAUDE_PLUGIN_ROOT}` is the plugin's folder.
    // A plugin's server runs from the plugin's own folder (`${CLAUDE_PLUGIN_ROOT}`), which its sandbox lets it read.
    const pluginReads = enabledPluginParts(options.dataDir).plugins.flatMap((p) =>
      p.mcpFiles.map((file) => {
        const read = readMcpConfigFile(file, 'user', { ...env, CLAUDE_PLUGIN_ROOT: p.root }, 'plugin');
        return { ...read, servers: read.servers.map((s) => (s.type === 'stdio' ? { ...s, readable: [p.root] } : s)) };
      }),
    );
    const user = { servers: [...person.servers, ...pluginReads.flatMap((r) => r.servers)], problems: [...person.problems, ...pluginReads.flatMap((r) => r.problems)] };
    const cli = (options.mcpConfigFiles ?? []).map((file) => readMcpConfigFile(resolve(file), 'cli', env));

    // The folder's entries: an untrusted one changes nothing (not even by disabling a server of
    // the person's of the same name). What cannot be expanded is told only for an entry that
    // would run, and only such an entry is expanded.
    const source: ConfigSource = { kind: 'project', file: projectMcpFile(folder) };
    const project: McpServerConfig[] = [];
    const untrusted: McpServerConfig[] = [];
    const projectRead = projectServerItems(folder, env);
    const expansionProblems: string[] = [];
    for (const { entry: trustEntry, value: entry } of projectRead.items) {
      const trusted = options.trustForRun === true || store.isTrusted(folder, trustEntry);
      const runs = trusted && entry.fields.disabled !== true;
      // Only the variables the trust list named are expanded (SPEC §9).
      const expanded = expandServerEntry(entry, source, namedOnly(env, entryVariables(entry)), { asWritten: !runs, personEnv: env });
      if ('problem' in expanded) expansionProblems.push(problemLine(expanded.problem));
      else (trusted ? project : untrusted).push(expanded.server);
    }

    const servers = mergeServers(user.servers, project, ...cli.map((read) => read.servers));
    // One state per name: a server that runs under this name is not listed again as not trusted
    // (the report still lists the entry, as trusting it would change what runs).
    const running = new Set(servers.map((s) => s.name));
    return {
      servers,
      untrusted: untrusted.filter((s) => !running.has(s.name)),
      // The MCP files' problems only: the report's other loaders (hooks, skills) have their own.
      problems: [
        ...new Set([
          ...storeProblems,
          ...user.problems.map(problemLine),
          ...projectRead.problems,
          ...expansionProblems,
          ...cli.flatMap((read) => read.problems.map(problemLine)),
        ]),
      ],
      report: options.trustForRun ? { ...report, untrusted: [] } : report,
    };
  } finally {
    if (options.store === undefined) (store as TrustStore).close();
  }
}

function namedOnly(env: NodeJS.ProcessEnv, names: readonly string[]): NodeJS.ProcessEnv {
  return Object.fromEntries(names.filter((name) => Object.hasOwn(env, name)).map((name) => [name, env[name]]));
}
