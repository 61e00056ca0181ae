// `deepdesk trust [--folder DIR]` and `deepdesk trust --revoke` (SPEC §9): prints what the
// folder's configuration would load, one line an entry (the same list the window shows), and
// records trust in exactly that content; --revoke forgets the folder's trust. The plugins the
// folder's settings turn on (`enabledPlugins`) are offered after it as the window offers them
// (SPEC §15): on a terminal, its marketplace added and the plugin installed each only on the
// person's `y`, the plugin's list of what it would load shown first; otherwise, how to by hand.

import { resolveDataDir } from '../app/base/data-dir';
import { pendingFolderPlugins } from '../core/config/kinds/plugins';
import { PluginError, PluginStore } from '../core/extensions/plugins/store';
import { trustReport } from '../core/trust/report';
import { TrustStore } from '../core/trust/store';
import { projectFolder } from './folder-flag';
import { COMMAND_OPTIONS } from './command-table';
import { processIo } from './command-io';
import { confirmed, installIfConfirmed, sayLine, type PluginAsk, type PluginIo } from './plugin-install';
import { parseCommand, UsageError } from './usage';
import { terminalSafe } from '../core/text/terminal-safe';

const OPTIONS = COMMAND_OPTIONS.trust;

export async function trustCommand(argv: string[], io: PluginIo = { ...processIo(), stdin: process.stdin }): Promise<number> {
  const { values, positionals } = parseCommand(argv, OPTIONS);
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  const folder = projectFolder(values.folder, 'trust');
  const dataDir = resolveDataDir(values['data-dir'], io.env);
  const store = new TrustStore(dataDir, { onProblem: (problem) => io.stderr.write(`deepdesk trust: ${terminalSafe(problem.message, { singleLine: true })}\n`) });
  try {
    if (values.revoke) {
      io.stdout.write(store.revoke(folder) ? `Trust revoked: ${folder}'s configuration no longer loads until it is trusted again\n` : `${folder} was not trusted; nothing to revoke\n`);
      return 0;
    }
    const report = await trustReport(folder, store, io.env);
    for (const problem of report.problems) io.stderr.write(`deepdesk trust: ${terminalSafe(problem, { singleLine: true })}\n`);
    if (report.entries.length === 0) {
      io.stdout.write(`Nothing in ${report.folder} needs trust: it has no configuration of its own that runs\n`);
    } else {
      for (const entry of report.entries) io.stdout.write(`${terminalSafe(entry.label, { singleLine: true })}\n`);
      if (report.untrusted.length === 0) io.stdout.write(`All of this is trusted already (${report.folder})\n`);
      else {
        store.trust(report.folder, report.untrusted);
        const count = report.untrusted.length;
        io.stdout.write(`Trusted ${count} ${count === 1 ? 'entry' : 'entries'} in ${report.folder}; a changed entry needs trust again\n`);
      }
    }
    return await offerFolderPlugins(report.folder, new PluginStore(dataDir, io.env), { io, yes: false, command: 'deepdesk trust' });
  } finally {
    store.close();
  }
}

/** Each plugin the folder asks for and the person has not installed: its marketplace, then the plugin, each on its own `y`. */
async function offerFolderPlugins(folder: string, plugins: PluginStore, ask: PluginAsk): Promise<number> {
  const say = (line: string): void => sayLine(ask.io, line);
  for (const request of pendingFolderPlugins(folder, plugins)) {
    const { spec, marketplace, marketplaceSource: source } = request;
    say(`The folder's ${request.file} turns on the plugin ${spec}, which is not installed.`);
    const byHand = `deepdesk plugin install ${spec}`;
    try {
      if (!request.marketplaceAdded) {
        if (source === undefined) {
          say(`  It does not say where the marketplace ${marketplace} is. To install it: deepdesk plugin marketplace add SOURCE, then ${byHand}`);
          continue;
        }
        say(`  Its marketplace ${marketplace} is at ${source}; adding it fetches it with git, and nothing of it loads until a plugin of it is installed.`);
        const add = await confirmed(ask, `Add marketplace ${marketplace}? [y/N] `);
        if (add !== 'yes') {
          say(`  Not installed. To install it: deepdesk plugin marketplace add ${source}, then ${byHand}`);
          continue;
        }
        const added = await plugins.addMarketplace(source);
        say(`Added marketplace ${added.name}`);
      }
      if (ask.io.stdin.isTTY !== true) {
        say(`  Not installed. To install it: ${byHand}`);
        continue;
      }
      await installIfConfirmed(plugins, await plugins.stageFromMarketplace(spec), 'Installing', ask);
    } catch (err) {
      if (!(err instanceof PluginError)) throw err;
      ask.io.stderr.write(`deepdesk trust: ${terminalSafe(err.message, { singleLine: true })}\n`);
    }
  }
  return 0;
}
