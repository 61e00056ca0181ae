// `deepdesk mcp ls | tools NAME | add NAME [--project] -- CMD… | add NAME --url URL
// [--header 'K: V']… | rm NAME` (SPEC §10).

import { existsSync, realpathSync } from 'node:fs';
import { entryProblem, readJsonObject, readMcpConfigFile, removeServerEntry, writeServerEntry } from '../core/config/mcp-config';
import { problemLine } from '../core/config/mcp-config-types';
import { mcpTrustKey, projectMcpFile, userMcpFile } from '../core/config/kinds/mcp';
import { trustReport } from '../core/trust/report';
import { TrustStore } from '../core/trust/store';
import { terminalSafe } from '../core/text/terminal-safe';
import { resolveDataDir } from '../app/base/data-dir';
import { statusText } from '../app/mcp/mcp-service';
import { projectFolder } from './folder-flag';
import { openCommandExtensions } from '../app/session/session-extensions';
import { packageVersion } from '../app/base/package-version';
import { table } from './table';
import { COMMAND_OPTIONS } from './command-table';
import { processIo, type CommandIo } from './command-io';
import { parseCommand, sessionFlagsOf, UsageError } from './usage';

const MCP_OPTIONS = COMMAND_OPTIONS.mcp;

export async function mcpCommand(argv: string[], io: CommandIo = processIo()): Promise<number> {
  // Everything after `--` is the server's command line, options included.
  const dashes = argv.indexOf('--');
  const own = dashes < 0 ? argv : argv.slice(0, dashes);
  const commandLine = dashes < 0 ? [] : argv.slice(dashes + 1);
  const { values, positionals } = parseCommand(own, MCP_OPTIONS);
  const flags = sessionFlagsOf('mcp', values);
  const [sub, name, ...extra] = positionals;
  const dataDir = resolveDataDir(values['data-dir'], io.env);
  const say = (line: string): void => void io.stderr.write(`deepdesk: ${terminalSafe(line, { singleLine: true })}\n`);
  switch (sub) {
    case 'ls':
    case 'tools': {
      if (sub === 'tools' && name === undefined) throw new UsageError('mcp tools needs a server name: deepdesk mcp tools NAME');
      const folder = projectFolder(values.folder, 'mcp');
      const servers = await openCommandExtensions({ folder, dataDir, env: io.env, mcpConfigFiles: flags.mcpConfig ?? [], trust: flags.trust === true, version: packageVersion(), say });
      try {
        const states = servers.hub.states();
        if (sub === 'ls') {
          if (states.length === 0) io.stdout.write(`No MCP servers. Add one with: deepdesk mcp add NAME -- COMMAND [ARGS…]\n`);
          const rows = states.map((s) => [s.name, s.config.type, s.status, `${s.tools.length} tools`]);
          io.stdout.write(table(rows));
          return 0;
        }
        const state = states.find((s) => s.name === name);
        if (!state) throw new UsageError(`there is no MCP server named ${name} (deepdesk mcp ls lists them)`);
        if (state.status !== 'connected') {
          say(`MCP server ${name} is ${statusText(state.status, 0).toLowerCase()}${state.error ? `: ${state.error}` : ''}`);
          return 1;
        }
        for (const tool of state.tools) io.stdout.write(`${terminalSafe(tool.qualifiedName, { singleLine: true })}  ${terminalSafe((tool.description.split('\n')[0] ?? '').trim(), { singleLine: true })}\n`);
        return 0;
      } finally {
        await servers.close();
      }
    }
    case 'add': {
      if (name === undefined) throw new UsageError('mcp add needs a name: deepdesk mcp add NAME -- COMMAND [ARGS…] or deepdesk mcp add NAME --url URL');
      if (extra.length > 0) throw new UsageError(`put the server's command after --: deepdesk mcp add ${name} -- ${extra.join(' ')}`);
      const entry = entryFrom(values, commandLine);
      const folder = values.project ? realpathSync(projectFolder(values.folder, 'mcp')) : undefined;
      const file = folder ? projectMcpFile(folder) : userMcpFile(dataDir);
      // Checked as the file's reader will read it: a bad entry is refused before it is written.
      const problem = entryProblem(file, name, entry);
      if (problem !== undefined) throw new UsageError(`${problem.field ? `${problem.field}: ` : ''}${problem.message}`);
      const replaced = existsSync(file) && readMcpConfigFile(file, folder ? 'project' : 'user', io.env).servers.some((s) => s.name === name);
      writeServerEntry(file, name, entry, folder ? { mode: 0o644 } : {});
      if (folder) {
        // The person wrote this entry: it is trusted as written (a later change asks again).
        const store = new TrustStore(dataDir);
        try {
          const report = await trustReport(folder, store, io.env);
          store.trust(folder, report.untrusted.filter((e) => e.key === mcpTrustKey(name)));
        } finally {
          store.close();
        }
      }
      io.stdout.write(`${replaced ? 'Replaced' : 'Added'} MCP server ${name} in ${file}\n`);
      return 0;
    }
    case 'rm': {
      if (name === undefined) throw new UsageError('mcp rm needs a server name: deepdesk mcp rm NAME');
      const candidates = values.project ? [projectMcpFile(realpathSync(projectFolder(values.folder, 'mcp')))] : [userMcpFile(dataDir), projectMcpFile(realpathSync(projectFolder(values.folder, 'mcp')))];
      for (const file of candidates) {
        const read = readJsonObject(file, 'user');
        if ('problem' in read) {
          if (read.problem === undefined) continue;
          say(`cannot remove ${name}: ${problemLine(read.problem)}`);
          return 1;
        }
        const servers = read.value.mcpServers;
        if (typeof servers !== 'object' || servers === null || !Object.hasOwn(servers, name)) continue;
        removeServerEntry(file, name);
        io.stdout.write(`Removed MCP server ${name} from ${file}\n`);
        return 0;
      }
      say(`there is no MCP server named ${name}`);
      return 1;
    }
    default:
      throw new UsageError(sub === undefined ? 'mcp needs a subcommand: ls, tools, add or rm' : `unknown mcp subcommand '${sub}' (ls, tools, add, rm)`);
  }
}

type McpValues = ReturnType<typeof parseCommand<typeof MCP_OPTIONS>>['values'];

function entryFrom(values: McpValues, commandLine: string[]): Record<string, unknown> {
  const env = Object.fromEntries(
    (values.env ?? []).map((pair) => {
      const eq = pair.indexOf('=');
      if (eq <= 0) throw new UsageError(`--env takes KEY=VALUE (got '${pair}')`);
      return [pair.slice(0, eq), pair.slice(eq + 1)];
    }),
  );
  // Deepdesk's credentials the entry takes (SPEC §10: only these expand, and only into env or headers).
  const credentials = [...new Set(values.credential ?? [])];
  for (const name of credentials) if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new UsageError(`--credential takes a variable name (got '${name}')`);
  const named = credentials.length > 0 ? { credentials } : {};
  if (values.url !== undefined) {
    if (commandLine.length > 0) throw new UsageError('give either --url URL or -- COMMAND, not both');
    const transport = values.transport ?? 'http';
    if (transport !== 'http' && transport !== 'sse') throw new UsageError(`--transport must be http or sse (got '${transport}')`);
    const headers = Object.fromEntries(
      (values.header ?? []).map((h) => {
        const colon = h.indexOf(':');
        if (colon <= 0) throw new UsageError(`--header takes 'Name: value' (got '${h}')`);
        return [h.slice(0, colon).trim(), h.slice(colon + 1).trim()];
      }),
    );
    return { type: transport, url: values.url, ...(Object.keys(headers).length > 0 ? { headers } : {}), ...named };
  }
  if (commandLine.length === 0) throw new UsageError('mcp add needs the server: -- COMMAND [ARGS…] or --url URL');
  if ((values.header ?? []).length > 0) throw new UsageError('--header is for --url servers');
  const [command, ...args] = commandLine;
  return { command, args, ...(Object.keys(env).length > 0 ? { env } : {}), ...(values['no-sandbox'] ? { sandbox: false } : {}), ...named };
}
