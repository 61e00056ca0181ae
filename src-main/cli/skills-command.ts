// `deepdesk skills ls [--folder DIR]` (SPEC §11): a line a skill, `NAME  SOURCE  PATH`, the
// project's untrusted ones marked `not trusted`; on stderr every skill that could not be used
// (`deepdesk: FILE: PROBLEM`), skills hidden by another of the same name, and what the
// prompt's skill list leaves out or shortens for the context window given (2% of it, in
// tokens; without one, 8,000 characters).

import { homedir } from 'node:os';
import { resolveDataDir } from '../app/base/data-dir';
import { discoverSkills } from '../core/extensions/skills/discover';
import { budgetText, skillListing, skillPromptBudget } from '../core/agent/middleware/skills-prompt';
import type { Skill } from '../core/extensions/skills/types';
import { folderTrust } from '../core/trust/folder-trust';
import { TrustStore } from '../core/trust/store';
import { terminalSafe } from '../core/text/terminal-safe';
import { projectFolder } from './folder-flag';
import { table } from './table';
import { COMMAND_OPTIONS } from './command-table';
import { processIo, type CommandIo } from './command-io';
import { parseCommand, sessionFlagsOf, UsageError } from './usage';

const OPTIONS = COMMAND_OPTIONS.skills;

export async function skillsCommand(argv: string[], io: CommandIo = processIo()): Promise<number> {
  const { values, positionals } = parseCommand(argv, OPTIONS);
  const [sub, ...extra] = positionals;
  if (sub !== 'ls') throw new UsageError(sub === undefined ? 'skills needs a subcommand: deepdesk skills ls' : `unknown subcommand '${sub}' (deepdesk skills ls)`);
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
  const { contextWindow } = sessionFlagsOf('skills', values);
  const folder = projectFolder(values.folder, 'skills');
  const dataDir = resolveDataDir(values['data-dir'], io.env);
  const say = (line: string): void => void io.stderr.write(`deepdesk: ${terminalSafe(line, { singleLine: true })}\n`);
  const store = new TrustStore(dataDir, { onProblem: (problem) => say(problem.message) });
  try {
    const found = discoverSkills({ dataDir, home: io.env.HOME ?? homedir(), folder, isTrusted: folderTrust(store, folder).isTrusted });
    const row = (skill: Skill, state?: string): string[] => [
      skill.name,
      state === undefined ? skill.source : `${skill.source} (${state})`,
      `${skill.file}${skill.disableModelInvocation ? ` (only as /${skill.name})` : ''}`,
    ];
    const rows = [...found.skills.map((s) => row(s)), ...found.off.map((s) => row(s, 'off')), ...found.untrusted.map((s) => row(s, 'not trusted'))];
    if (rows.length === 0) io.stdout.write('No skills. A skill is a folder holding a SKILL.md, in ~/.agents/skills/, ~/.claude/skills/ or the data folder\'s skills/\n');
    io.stdout.write(table(rows));
    for (const problem of found.problems) say(`${problem.file}: ${problem.message}`);
    for (const note of found.notes) say(note);
    const listing = skillListing(found.skills, skillPromptBudget(contextWindow));
    if (listing.omitted.length > 0) say(`the prompt's skill list (${budgetText(listing.budget)}) leaves out ${listing.omitted.length}: ${listing.omitted.join(', ')}`);
    if (listing.shortened.length > 0) say(`the prompt's skill list (${budgetText(listing.budget)}) shortens the description of ${listing.shortened.length}: ${listing.shortened.join(', ')}`);
    return 0;
  } finally {
    store.close();
  }
}
