// `deepdesk blame FILE [--folder DIR] [--json]` (SPEC §24): who wrote each line of the working
// tree's file, from the checkpoint log: `agent THREAD MODEL` (another agent's name after it),
// `person` or `unknown` per line.
// The folder is recorded and its new commits noted first, as on every look at a folder Deepdesk knows.

import fs from 'node:fs';
import path from 'node:path';
import { resolveDataDir } from '../app/base/data-dir';
import { knownAgent } from '../app/agents/vendors/catalog';
import { noteFolderCommits } from '../app/session/provenance';
import { readSavedSettings } from '../app/settings/settings-service';
import { lineAuthors } from '../core/checkpoints/line-authors';
import { linesGitGivesThePerson } from '../core/checkpoints/provenance/commit-notes';
import { recorderFor } from '../core/checkpoints/recorder';
import { CheckpointStore } from '../core/checkpoints/store';
import { COMMAND_OPTIONS } from './command-table';
import { projectFolder } from './folder-flag';
import { parseCommand, UsageError } from './usage';

export async function blameCommand(argv: string[], stdout: NodeJS.WritableStream = process.stdout): Promise<number> {
  const { values, positionals } = parseCommand(argv, COMMAND_OPTIONS.blame);
  if (positionals.length !== 1) throw new UsageError('blame needs exactly one FILE');
  const folder = projectFolder(values.folder, 'blame');
  const file = path.resolve(folder, positionals[0]!);
  const rel = path.relative(folder, file).split(path.sep).join('/');
  if (rel === '' || rel.startsWith('../') || path.isAbsolute(rel)) throw new UsageError(`${positionals[0]} is not a file in ${folder}`);
  let content: Buffer;
  try {
    content = fs.readFileSync(file);
  } catch {
    throw new UsageError(`file not found: ${positionals[0]}`);
  }
  const dataDir = resolveDataDir(values['data-dir']);
  const store = CheckpointStore.open(dataDir);
  try {
    // The folder recorded first (its first snapshot, or the person's changes since), as on every look at it.
    const recorder = recorderFor(store, folder);
    await recorder.recordFolder();
    await noteFolderCommits({ store, folder: recorder.root, env: process.env, settings: () => readSavedSettings(dataDir).provenance });
    const authors = lineAuthors(store, recorder.root, rel, content);
    // A line Deepdesk cannot place that git gives the person (committed by them before Deepdesk saw it) is theirs.
    const persons = authors.some((a) => a.kind === 'unknown') ? await linesGitGivesThePerson({ folder: recorder.root, env: process.env }, rel) : new Set<number>();
    for (const a of authors) if (a.kind === 'unknown' && persons.has(a.line)) a.kind = 'person';
    if (values.json) stdout.write(JSON.stringify(authors) + '\n');
    else for (const a of authors) stdout.write(`${a.kind === 'agent' ? `agent ${a.thread} ${a.model ?? 'unknown'}${a.agent !== undefined ? ` (${knownAgent(a.agent)?.label ?? a.agent})` : ''}` : a.kind}\n`);
    return 0;
  } finally {
    store.close();
  }
}
