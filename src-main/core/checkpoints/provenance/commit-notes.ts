// Provenance in git (SPEC §24): for each commit made in a folder since Deepdesk first recorded
// it that has no note of Deepdesk's, a git-ai v3.0.0 note under refs/notes/ai from the checkpoint
// log. Only git's object store and that ref change: no hook, nothing in the working tree, index or
// config. The notes Deepdesk wrote are known by their blob ids (the checkpoint store; one carried
// by notes.rewriteRef keeps its blob); another's note stands (git-ai's of the person's commit)
// unless Deepdesk places some of the commit's lines on an agent: then it was forged over
// Deepdesk's attribution, or made without it, and Deepdesk's replaces it.
// git runs here (run-git.ts), or for a folder on another machine at its place (an SSH folder's,
// the script backend's), with what the repository's config names held off the same way.

import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { Place } from '../../backends/script/place';
import { PLAIN_DIFF } from '../../git/held-off-config';
import { heldOffGitPrelude } from '../../git/held-off-shell';
import { gitEnv, gitFailure, runGit, type GitRunResult } from '../../git/run-git';
import { shQuote } from '../../text/shell-quote';
import { lineAuthors } from '../line-authors';
import type { CheckpointStore } from '../store';
import { gitAiNote, NOTES_REF, type NoteFile } from './git-ai-note';

const TIMEOUT_MS = 60_000;
/** Commits looked at on one look, newest first. */
const MAX_COMMITS = 200;

export interface NoteWriting {
  store: CheckpointStore;
  /** The folder as the checkpoint log knows it (a local path, an SSH folder's ssh:// URL). */
  folder: string;
  env: NodeJS.ProcessEnv;
  /** A folder on another machine: git runs at this place, in its root. */
  place?: Place;
  /** git-ai's `agent_id.tool` of another agent's lines by its name; Deepdesk's own are `deepdesk`. */
  toolOf(agent: string): string;
  /** Records what changed in the folder since it was last recorded (the person's lines), before commits are noted. */
  record?(): Promise<unknown>;
  signal?: AbortSignal;
}

/**
 * Notes the folder's commits since Deepdesk first recorded it that have no note of Deepdesk's:
 * those noted, and whether every commit found is now settled (noted, or another's note kept);
 * not when there was no baseline yet or git could not list them.
 */
export async function noteNewCommits(w: NoteWriting): Promise<{ noted: string[]; settled: boolean }> {
  const since = w.store.baselineAt(w.folder);
  if (since === undefined) return { noted: [], settled: false };
  const git = gitIn(w);
  // Commit times are in seconds: a commit in the baseline's second is looked at too.
  const sinceSeconds = Math.floor(Date.parse(since) / 1000) - 1;
  const listed = await git(['rev-list', `--since=${sinceSeconds}`, `--max-count=${MAX_COMMITS}`, 'HEAD', '--'], true);
  if (listed === undefined) return { noted: [], settled: false };
  const notes = new Map(((await git(['notes', `--ref=${NOTES_REF}`, 'list'], true)) ?? '').split('\n').map((l) => [l.split(' ')[1], l.split(' ')[0]!]));
  const fresh = listed.split('\n').filter((c) => c !== '' && !w.store.knowsNote(w.folder, notes.get(c) ?? '')).reverse();
  if (fresh.length > 0) await w.record?.();
  const noted: string[] = [];
  let left = 0;
  for (const commit of fresh) {
    if (await noteCommit(w, commit, notes.get(commit))) noted.push(commit);
    else if (!w.store.knowsNote(w.folder, notes.get(commit) ?? '')) left++;
  }
  return { noted, settled: left === 0 };
}

/** Writes the commit's note over `existing` (another's note there, by its blob id) when Deepdesk places some of its lines on an agent; whether it wrote one. */
export async function noteCommit(w: NoteWriting, commit: string, existing?: string): Promise<boolean> {
  const git = gitIn(w);
  const [parents = '', authored, committed] = (await git(['log', '-1', '--format=%P%x00%at%x00%ct', commit, '--']))!.trim().split('\0');
  const prefix = (await git(['rev-parse', '--show-prefix']))!.trim();
  const files: NoteFile[] = [];
  // A merge's note holds only what it changed beyond its parents: nothing of ours to tell.
  if (!parents.includes(' ')) {
    const patch = await git([...PLAIN_DIFF.config, '-c', 'core.quotePath=false', 'diff-tree', '-r', '--root', '--no-commit-id', '-U0', '--full-index', ...PLAIN_DIFF.args, commit]);
    for (const added of addedLines(patch!)) {
      if (!added.path.startsWith(prefix) || added.lines.length === 0) continue;
      const rel = added.path.slice(prefix.length);
      const content = await contentOf(w, rel, added.blob, git);
      if (content === undefined) continue;
      const authors = lineAuthors(w.store, w.folder, rel, content);
      files.push({ path: added.path, lines: added.lines.flatMap((n) => authors[n - 1] ?? []) });
    }
  }
  const { name, email } = await personOf(git);
  const person = name && email ? `${name} <${email}>` : undefined;
  // Rewritten where Deepdesk did not see it (a rebase or amend keeps the author's time): placed by content.
  const attributes = authored !== committed ? { deepdesk_recovered: 'by-content' } : undefined;
  if (existing !== undefined && !files.some((f) => f.lines.some((l) => l.kind === 'agent'))) {
    w.store.knowNote(w.folder, existing);
    return false;
  }
  const note = gitAiNote({ commit, files, ...(person ? { person } : {}), toolOf: (agent) => (agent === undefined ? 'deepdesk' : w.toolOf(agent)), ...(attributes ? { attributes } : {}) });
  // Without -f (unless replacing `existing`): a note written meanwhile is kept.
  const add = (file: string, input?: string) => git(['notes', `--ref=${NOTES_REF}`, 'add', ...(existing !== undefined ? ['-f'] : []), '-F', file, commit], true, input);
  let added: string | undefined;
  const dir = w.place ? undefined : fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-note-'));
  try {
    if (dir) fs.writeFileSync(path.join(dir, 'note'), note, { mode: 0o600 });
    added = await (dir ? add(path.join(dir, 'note')) : add('-', note));
  } finally {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
  const blob = added === undefined ? undefined : (await git(['notes', `--ref=${NOTES_REF}`, 'list', commit], true))?.trim();
  if (blob) w.store.knowNote(w.folder, blob);
  return Boolean(blob);
}

/** The person as git's config names them. */
async function personOf(git: ReturnType<typeof gitIn>): Promise<{ name?: string | undefined; email?: string | undefined }> {
  const identity = await git(['config', '--get-regexp', '^user\\.(name|email)$'], true);
  const [name, email] = ['user.name ', 'user.email '].map((key) => identity?.split('\n').findLast((l) => l.startsWith(key))?.slice(key.length).trim());
  return { name, email };
}

/** The lines of the working tree's `file` git already gives the person (1-based): committed by them (their email as author). */
export async function linesGitGivesThePerson(w: Pick<NoteWriting, 'folder' | 'env' | 'place'>, file: string): Promise<Set<number>> {
  const git = gitIn(w);
  const { email } = await personOf(git);
  const blamed = email ? await git(['blame', '--porcelain', '--', file], true) : undefined;
  if (!email || blamed === undefined) return new Set();
  const mailOf = new Map<string, string>();
  const lines = new Set<number>();
  let at: { commit: string; line: number } | undefined;
  for (const line of blamed.split('\n')) {
    const header = /^([0-9a-f]{40}) \d+ (\d+)/.exec(line);
    if (header) at = { commit: header[1]!, line: Number(header[2]) };
    else if (at && line.startsWith('author-mail ')) mailOf.set(at.commit, line.slice('author-mail '.length).replace(/^<|>$/g, '').toLowerCase());
    else if (at && line.startsWith('\t') && mailOf.get(at.commit) === email.toLowerCase()) lines.add(at.line);
  }
  return lines;
}

/** Where the remote's notes are fetched to, for the merge (removed after). */
const FETCHED_REF = 'refs/deepdesk/notes-ai-fetched';

/**
 * Pushes the notes to `origin` (only when the person turned that on): their notes fetched and
 * merged under ours (`git notes merge -s ours`), then pushed; a push that lost a race is tried again.
 */
export async function pushNotes(w: NoteWriting, attempts = 3): Promise<boolean> {
  const git = gitIn(w);
  for (let attempt = 0; attempt < attempts; attempt++) {
    if ((await git(['fetch', '--quiet', '--no-tags', 'origin', `+${NOTES_REF}:${FETCHED_REF}`], true)) !== undefined) {
      await git(['notes', `--ref=${NOTES_REF}`, 'merge', '--quiet', '-s', 'ours', FETCHED_REF]);
      await git(['update-ref', '-d', FETCHED_REF], true);
    }
    if ((await git(['push', '--quiet', '--no-verify', 'origin', `${NOTES_REF}:${NOTES_REF}`], true)) !== undefined) return true;
  }
  return false;
}

interface AddedLines {
  path: string;
  blob: string;
  /** 1-based, in the commit's version. */
  lines: number[];
}

/** Per file of a `-U0 --full-index` patch, its new blob and the lines it adds (deleted files and unreadable names left out). */
function addedLines(patch: string): AddedLines[] {
  const out: AddedLines[] = [];
  let blob = '';
  let file: AddedLines | undefined;
  const lines = patch.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const hunk = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (hunk) {
      const [removed, start, count] = [Number(hunk[1] ?? 1), Number(hunk[2]), Number(hunk[3] ?? 1)];
      for (let n = 0; n < count; n++) file?.lines.push(start + n);
      // Past its lines (a `\ No newline at end of file` among them is not one).
      for (let left = removed + count; left > 0 && i + 1 < lines.length; ) if (!lines[++i]!.startsWith('\\')) left--;
    } else if (line.startsWith('index ')) blob = /\.\.([0-9a-f]+)/.exec(line)?.[1] ?? '';
    else if (line.startsWith('+++ ')) {
      const name = unquote(line.slice(4).replace(/\t$/, ''));
      file = name?.startsWith('b/') ? { path: name.slice(2), blob, lines: [] } : undefined;
      if (file) out.push(file);
    }
  }
  return out;
}

/** A name as git's diff writes it: as is, or C-quoted (core.quotePath off: only quotes, backslashes and control characters). */
function unquote(name: string): string | undefined {
  if (!name.startsWith('"')) return name;
  try {
    return JSON.parse(name) as string;
  } catch {
    return undefined;
  }
}

/** The commit's version of the file: a local working tree's when it is the same blob (no git call), else git's. */
async function contentOf(w: NoteWriting, rel: string, blob: string, git: ReturnType<typeof gitIn>): Promise<Buffer | undefined> {
  try {
    const here = w.place ? undefined : fs.readFileSync(path.join(w.folder, rel));
    if (here && createHash('sha1').update(`blob ${here.length}\0`).update(here).digest('hex') === blob) return here;
  } catch {
    // Not in the working tree (any more): git's.
  }
  const stored = await git(['cat-file', 'blob', blob], true);
  return stored === undefined ? undefined : Buffer.from(stored);
}

/** The notes' own commits are Deepdesk's (the person's identity may not be set). */
const NOTES_IDENTITY = { GIT_AUTHOR_NAME: 'Deepdesk', GIT_AUTHOR_EMAIL: 'deepdesk@localhost', GIT_COMMITTER_NAME: 'Deepdesk', GIT_COMMITTER_EMAIL: 'deepdesk@localhost' };

/** git in the folder; `optional`: a failure is undefined rather than an error; `input` (at a place only): its stdin. */
function gitIn(w: Pick<NoteWriting, 'folder' | 'env' | 'place' | 'signal'>) {
  const env = { ...gitEnv(w.env), ...NOTES_IDENTITY };
  const signal = w.signal ? { signal: w.signal } : {};
  return async (args: string[], optional = false, input?: string): Promise<string | undefined> => {
    const result = w.place ? await gitAt(w.place, args, input, signal) : await runGit(args, { cwd: w.folder, env, timeoutMs: TIMEOUT_MS, ...signal });
    if (result.code === 0) return result.stdout;
    if (optional) return undefined;
    throw new Error(gitFailure(result, TIMEOUT_MS));
  };
}

/** git at the place, in its root, with what the repository's config names held off (held-off-shell.ts), no prompt and ssh in batch mode. */
async function gitAt(place: Place, args: readonly string[], input: string | undefined, signal: { signal?: AbortSignal }): Promise<GitRunResult> {
  const identity = Object.entries(NOTES_IDENTITY).map(([k, v]) => `${k}=${shQuote(v)}`);
  const script = [
    heldOffGitPrelude(),
    `cd -- ${shQuote(place.root)} || exit 3`,
    'unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_CONFIG_PARAMETERS',
    `${identity.join(' ')} GIT_TERMINAL_PROMPT=0 GIT_SSH_COMMAND='ssh -o BatchMode=yes' LC_ALL=C git --no-pager "$@" ${args.map(shQuote).join(' ')}`,
  ].join('\n');
  const r = await place.run(script, { timeoutMs: TIMEOUT_MS, ...(input !== undefined ? { stdin: Buffer.from(input) } : {}), ...signal });
  return { code: r.exitCode, stdout: r.output.toString('utf8'), stderr: r.stderr ?? '', timedOut: r.timedOut, aborted: false };
}
