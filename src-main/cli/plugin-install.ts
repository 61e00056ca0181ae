// Installing a plugin from the command line (SPEC §15), for `deepdesk plugin` and the plugins a
// folder's settings ask for in `deepdesk trust`: the list of exactly what it would load, then
// the install only once the person confirms (`--yes`, or `y` on a terminal).

import { pluginContents } from '../core/extensions/plugins/parts';
import type { PluginStore, StagedPlugin } from '../core/extensions/plugins/store';
import { terminalSafe } from '../core/text/terminal-safe';
import { askLine } from './terminal-output';

export interface PluginIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/** How a command asks: its name for its lines, and whether `--yes` answered already. */
export interface PluginAsk {
  io: PluginIo;
  yes: boolean;
  /** `deepdesk plugin`, `deepdesk trust`. */
  command: string;
}

export type InstallOutcome = 'installed' | 'declined' | 'no terminal';

export function sayLine(io: Pick<PluginIo, 'stdout'>, line: string): void {
  io.stdout.write(`${terminalSafe(line, { singleLine: true })}\n`);
}

/** Shows what the staged copy would load and installs exactly it when the person confirms; otherwise it is thrown away. */
export async function installIfConfirmed(store: PluginStore, staged: StagedPlugin, verb: 'Installing' | 'Updating', ask: PluginAsk): Promise<InstallOutcome> {
  const { io } = ask;
  const contents = pluginContents(staged.parts);
  sayLine(io, `${verb} ${staged.parts.name}${staged.parts.version ? ` ${staged.parts.version}` : ''} would load:`);
  const lines = [...contents.servers, ...contents.hooks, ...contents.skills, ...contents.commands, ...contents.agents];
  for (const line of lines.length > 0 ? lines : ['(nothing that runs or loads)']) sayLine(io, `  ${line}`);
  for (const problem of contents.problems) io.stderr.write(`${ask.command}: ${terminalSafe(problem, { singleLine: true })}\n`);
  const answer = await confirmed(ask, `${verb} ${staged.parts.name}? [y/N] `);
  if (answer !== 'yes') {
    store.discard(staged);
    if (answer === 'no terminal') return 'no terminal';
    sayLine(io, 'Not installed.');
    return 'declined';
  }
  const installed = store.install(staged);
  sayLine(io, `Installed ${installed.name}${installed.enabled ? '' : ' (disabled)'}; a change to it needs your confirmation again`);
  return 'installed';
}

/** `--yes`, else the person's `y` on a terminal; without a terminal nobody can be asked. */
export async function confirmed(ask: PluginAsk, question: string): Promise<'yes' | 'no' | 'no terminal'> {
  if (ask.yes) return 'yes';
  if (ask.io.stdin.isTTY !== true) return 'no terminal';
  return /^y(es)?$/i.test((await askLine(ask.io.stdin, ask.io.stdout, question)).trim()) ? 'yes' : 'no';
}
