// `deepdesk trust [--folder DIR]` and `deepdesk trust --revoke` (SPEC §9): prints what the
// folder's configuration would load, one line an entry (the same list the window shows), and
// records trust in exactly that content; --revoke forgets the folder's trust.

import { resolveDataDir } from '../app/data-dir';
import { trustReport } from '../core/trust/report';
import { TrustStore } from '../core/trust/store';
import { projectFolder } from './folders';
import { COMMAND_OPTIONS } from './command-table';
import { processIo, type CommandIo } from './command-io';
import { parseCommand, UsageError } from './usage';
import { terminalSafe } from '../core/text/terminal-safe';

const OPTIONS = COMMAND_OPTIONS.trust;

export async function trustCommand(argv: string[], io: CommandIo = processIo()): Promise<number> {
  const { values, positionals } = parseCommand(argv, OPTIONS);
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  const folder = projectFolder(values.folder, 'trust');
  const store = new TrustStore(resolveDataDir(values['data-dir'], io.env), { onProblem: (problem) => io.stderr.write(`deepdesk trust: ${terminalSafe(problem.message, { singleLine: true })}\n`) });
  try {
    if (values.revoke) {
      io.stdout.write(store.revoke(folder) ? `Trust revoked: ${folder}'s configuration no longer loads until it is trusted again\n` : `${folder} was not trusted; nothing to revoke\n`);
      return 0;
    }
    const report = await trustReport(folder, store, io.env);
    for (const problem of report.problems) io.stderr.write(`deepdesk trust: ${terminalSafe(problem, { singleLine: true })}\n`);
    if (report.entries.length === 0) {
      io.stdout.write(`Nothing in ${report.folder} needs trust: it has no configuration of its own that runs\n`);
      return 0;
    }
    for (const entry of report.entries) io.stdout.write(`${terminalSafe(entry.label, { singleLine: true })}\n`);
    if (report.untrusted.length === 0) {
      io.stdout.write(`All of this is trusted already (${report.folder})\n`);
      return 0;
    }
    store.trust(report.folder, report.untrusted);
    const count = report.untrusted.length;
    io.stdout.write(`Trusted ${count} ${count === 1 ? 'entry' : 'entries'} in ${report.folder}; a changed entry needs trust again\n`);
    return 0;
  } finally {
    store.close();
  }
}
