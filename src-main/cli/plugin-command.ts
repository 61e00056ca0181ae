// `deepdesk plugin …` (SPEC §15): marketplaces (`marketplace add SOURCE | ls | rm NAME |
// update [NAME]`) and plugins (`install PLUGIN@MARKETPLACE`, `add SOURCE`, `ls`, `enable`,
// `disable`, `rm`, `update [NAME]`). Installing shows exactly what would load and installs
// only once the person confirms (`--yes`, or `y` on a terminal); an update that changes
// anything shows the new list and asks again.

import { pluginPartCounts } from '../app/contract';
import { resolveDataDir } from '../app/base/data-dir';
import { pluginContents } from '../core/extensions/plugins/parts';
import { PluginError, PluginStore, type StagedPlugin } from '../core/extensions/plugins/store';
import { readPlugin } from '../core/extensions/plugins/manifest';
import { terminalSafe } from '../core/text/terminal-safe';
import { COMMAND_OPTIONS } from './command-table';
import { table } from './table';
import { parseCommand, UsageError } from './usage';
import { installIfConfirmed, sayLine, type PluginIo } from './plugin-install';

const USAGE = 'deepdesk plugin marketplace add SOURCE|ls|rm NAME|update [NAME], install PLUGIN@MARKETPLACE, add SOURCE, ls, enable NAME, disable NAME, rm NAME, update [NAME]';

export async function pluginCommand(argv: string[], io: PluginIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  const { values, positionals } = parseCommand(argv, COMMAND_OPTIONS.plugin);
  const [sub, ...args] = positionals;
  const store = new PluginStore(resolveDataDir(values['data-dir'], io.env), io.env);
  const say = (line: string): void => sayLine(io, line);
  const one = (what: string): string => {
    if (args.length !== 1) throw new UsageError(`plugin ${sub} needs ${what}: ${USAGE}`);
    return args[0]!;
  };
  const confirmAndInstall = async (staged: StagedPlugin, verb: 'Installing' | 'Updating'): Promise<number> => {
    if ((await installIfConfirmed(store, staged, verb, { io, yes: values.yes === true, command: 'deepdesk plugin' })) !== 'no terminal') return 0;
    io.stderr.write('deepdesk plugin: not installed: confirm with --yes (there is no terminal to ask on)\n');
    return 2;
  };
  try {
    switch (sub) {
      case 'marketplace': {
        const [action, ...rest] = args;
        if (action === 'add' && rest.length === 1) {
          const added = await store.addMarketplace(rest[0]!);
          say(`Added marketplace ${added.name} (${added.plugins.length} ${added.plugins.length === 1 ? 'plugin' : 'plugins'}: ${added.plugins.map((p) => p.name).join(', ') || 'none'})`);
          for (const problem of added.problems) io.stderr.write(`deepdesk plugin: ${terminalSafe(problem, { singleLine: true })}\n`);
          return 0;
        }
        if (action === 'ls' && rest.length === 0) {
          const markets = store.marketplaces();
          if (markets.length === 0) say('No marketplaces (deepdesk plugin marketplace add SOURCE)');
          io.stdout.write(table(markets.map((m) => [m.name, m.source, m.problem ?? `${m.plugins.length} plugins: ${m.plugins.map((p) => p.name).join(', ')}`])));
          return 0;
        }
        if (action === 'rm' && rest.length === 1) {
          store.removeMarketplace(rest[0]!);
          say(`Removed marketplace ${rest[0]!}`);
          return 0;
        }
        if (action === 'update' && rest.length <= 1) {
          for (const name of rest.length === 1 ? rest : store.marketplaces().map((m) => m.name)) {
            await store.updateMarketplace(name);
            say(`Updated marketplace ${name}`);
          }
          return 0;
        }
        throw new UsageError(`plugin marketplace needs add SOURCE, ls, rm NAME or update [NAME]`);
      }
      case 'install':
        return await confirmAndInstall(await store.stageFromMarketplace(one('PLUGIN@MARKETPLACE')), 'Installing');
      case 'add':
        return await confirmAndInstall(await store.stageFromSource(one('a plugin folder or git URL')), 'Installing');
      case 'ls': {
        if (args.length > 0) throw new UsageError(`unexpected arguments: ${args.join(' ')}`);
        const rows = store.plugins().map((p) => {
          const parts = readPlugin(store.installedDir(p.name));
          const c = 'problem' in parts ? undefined : pluginContents(parts);
          const counts = c === undefined ? (parts as { problem: string }).problem : pluginPartCounts(c);
          return [p.name, p.version ?? '-', p.marketplace ?? '-', p.enabled ? 'enabled' : 'disabled', counts];
        });
        if (rows.length === 0) say('No plugins installed (deepdesk plugin install PLUGIN@MARKETPLACE)');
        io.stdout.write(table(rows));
        for (const problem of store.enabledParts().problems) io.stderr.write(`deepdesk plugin: ${terminalSafe(problem, { singleLine: true })}\n`);
        return 0;
      }
      case 'enable':
      case 'disable': {
        const name = one('NAME');
        store.setEnabled(name, sub === 'enable');
        say(`${sub === 'enable' ? 'Enabled' : 'Disabled'} ${name}`);
        return 0;
      }
      case 'rm': {
        const name = one('NAME');
        store.remove(name);
        say(`Removed ${name}`);
        return 0;
      }
      case 'update': {
        if (args.length > 1) throw new UsageError(`plugin update takes at most one NAME`);
        let status = 0;
        for (const plugin of args.length === 1 ? store.plugins().filter((p) => p.name === args[0]) : store.plugins()) {
          const staged = await store.stageUpdate(plugin.name);
          if (staged.digest === plugin.digest) {
            store.discard(staged);
            say(`${plugin.name} is up to date`);
            continue;
          }
          status = Math.max(status, await confirmAndInstall(staged, 'Updating'));
        }
        if (args.length === 1 && !store.plugins().some((p) => p.name === args[0])) throw new PluginError(`no plugin named ${args[0]!} is installed (deepdesk plugin ls)`);
        return status;
      }
      default:
        throw new UsageError(sub === undefined ? `plugin needs a subcommand: ${USAGE}` : `unknown subcommand '${sub}' (${USAGE})`);
    }
  } catch (err) {
    if (err instanceof PluginError) {
      io.stderr.write(`deepdesk plugin: ${terminalSafe(err.message, { singleLine: true })}\n`);
      return 1;
    }
    throw err;
  }
}
