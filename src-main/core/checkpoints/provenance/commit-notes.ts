// Provenance in git (SPEC §24): for each commit made in a folder since Deepdesk first recorded
// it that has no note yet, a git-ai v3.0.0 note under refs/notes/ai from the checkpoint log.
// Only git's object store and that ref change: no hook, nothing in the working tree, index or
// config; a commit that already has a note (git-ai's, or one carried by notes.rewriteRef) keeps it.

import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { diffArrays } from 'diff';
import { gitEnv, gitFailure, runGit } from '../../git/run-git';
import { lineAuthors, linesOf } from '../line-authors';
import type { CheckpointStore } from '../store';
import { gitAiNote, NOTES_REF, type NoteFile } from './git-ai-note';

const TIMEOUT_MS = 60_000;
/** Commits looked at on one look, newest first. */
const MAX_COMMITS = 200;

export interface NoteWriting {
  store: CheckpointStore;
  /** The local folder as the checkpoint log knows it. */
  folder: string;
  env: NodeJS.ProcessEnv;
  /** git-ai's `agent_id.tool` of another agent's lines by its name; Deepdesk's own are `deepdesk`. */
  toolOf(agent: string): string;
  signal?: AbortSignal;
}

/** Notes the folder's commits since Deepdesk first recorded it that have none; returns those noted. */
export async function noteNewCommits(w: NoteWriting): Promise<string[]> {
  const since = w.store.baselineAt(w.folder);
  if (since === undefined) return [];
  const git = gitIn(w);
  // Commit times are in seconds: a commit in the baseline's second is looked at too.
  const sinceSeconds = Math.floor(Date.parse(since) / 1000) - 1;
  const listed = await git(['rev-list', `--since=${sinceSeconds}`, `--max-count=${MAX_COMMITS}`, 'HEAD', '--'], true);
  if (listed === undefined) return [];
  const noted = new Set(((await git(['notes', `--ref=${NOTES_REF}`, 'list'], true)) ?? '').split('\n').map((l) => l.split(' ')[1]));
  const fresh = listed.split('\n').filter((c) => c !== '' && !noted.has(c)).reverse();
  for (const commit of fresh) await noteCommit(w, commit);
  return fresh;
}

/** Writes the commit's note (nothing when it has one). */
export async function noteCommit(w: NoteWriting, commit: string): Promise<void> {
  const git = gitIn(w);
  const [parents = '', authored, committed] = (await git(['log', '-1', '--format=%P%x00%at%x00%ct', commit, '--']))!.trim().split('\0');
  const parent = parents.split(' ')[0] || undefined;
  const prefix = (await git(['rev-parse', '--show-prefix']))!.trim();
  const files: NoteFile[] = [];
  // A merge's note holds only what it changed beyond its parents: nothing of ours to tell.
  if (!parents.includes(' ')) {
    const changed = (await git(['diff-tree', '--no-commit-id', '--root', '-r', '-z', '--name-only', '--no-renames', '--no-ext-diff', commit]))!.split('\0');
    for (const file of changed) {
      if (file === '' || !file.startsWith(prefix)) continue;
      const now = await git(['cat-file', 'blob', `${commit}:${file}`], true);
      if (now === undefined) continue;
      const before = parent === undefined ? '' : ((await git(['cat-file', 'blob', `${parent}:${file}`], true)) ?? '');
      const authors = lineAuthors(w.store, w.folder, file.slice(prefix.length), Buffer.from(now));
      files.push({ path: file, lines: addedLines(before, now).flatMap((n) => authors[n - 1] ?? []) });
    }
  }
  const [name, email] = await Promise.all([git(['config', 'user.name'], true), git(['config', 'user.email'], true)]);
  const person = name?.trim() && email?.trim() ? `${name.trim()} <${email.trim()}>` : undefined;
  // Rewritten where Deepdesk did not see it (a rebase or amend keeps the author's time): placed by content.
  const attributes = authored !== committed ? { deepdesk_recovered: 'by-content' } : undefined;
  const note = gitAiNote({ commit, files, ...(person ? { person } : {}), toolOf: (agent) => (agent === undefined ? 'deepdesk' : w.toolOf(agent)), ...(attributes ? { attributes } : {}) });
  const dir = fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-note-'));
  try {
    fs.writeFileSync(path.join(dir, 'note'), note, { mode: 0o600 });
    // Without -f: a note already there (written meanwhile, or by git-ai) is kept.
    await git(['notes', `--ref=${NOTES_REF}`, 'add', '-F', path.join(dir, 'note'), commit], true);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The 1-based lines of `after` that are not `before`'s. */
function addedLines(before: string, after: string): number[] {
  const out: number[] = [];
  let line = 0;
  for (const part of diffArrays(linesOf(before), linesOf(after))) {
    const n = part.count ?? part.value.length;
    if (part.removed) continue;
    if (part.added) for (let k = 1; k <= n; k++) out.push(line + k);
    line += n;
  }
  return out;
}

/** git in the folder; `optional`: a failure is undefined rather than an error. */
function gitIn(w: NoteWriting) {
  // The notes' own commits are Deepdesk's (the person's identity may not be set).
  const env = { ...gitEnv(w.env), GIT_AUTHOR_NAME: 'Deepdesk', GIT_AUTHOR_EMAIL: 'deepdesk@localhost', GIT_COMMITTER_NAME: 'Deepdesk', GIT_COMMITTER_EMAIL: 'deepdesk@localhost' };
  return async (args: string[], optional = false): Promise<string | undefined> => {
    const result = await runGit(args, { cwd: w.folder, env, timeoutMs: TIMEOUT_MS, ...(w.signal ? { signal: w.signal } : {}) });
    if (result.code === 0) return result.stdout;
    if (optional) return undefined;
    throw new Error(gitFailure(result, TIMEOUT_MS));
  };
}
