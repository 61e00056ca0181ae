// The system git as the worktree service runs it: through the one runner (core/git/run-git:
// argument arrays, no hook ever runs, no prompts, a deadline and an AbortSignal), with the
// person's environment minus what would point git elsewhere, and failures turned into
// WorktreeErrors that say what went wrong in one line.

import { gitEnv, gitFailure, runGit, type GitRunResult } from '../../core/git/run-git';

export type WorktreeErrorCode =
  /** The folder is remote, or not in a git repository. */
  | 'not_git'
  /** The name breaks the naming rules. */
  | 'bad_name'
  /** The name, its folder or its branch is in use already. */
  | 'taken'
  /** No worktree of that name, or its folder is gone. */
  | 'not_found'
  /** git is older than 2.38. */
  | 'git_too_old'
  /** `Commit…` without user.name/user.email configured. */
  | 'no_identity'
  | 'nothing_to_commit'
  /** The person's folder changed while an apply was being prepared: nothing was changed. */
  | 'changed'
  /** A run is going in the worktree (in any process sharing the data folder): stop it first. */
  | 'busy'
  | 'cancelled'
  | 'failed';

export class WorktreeError extends Error {
  constructor(
    message: string,
    readonly code: WorktreeErrorCode,
  ) {
    super(message);
    this.name = 'WorktreeError';
  }
}

/** Long enough for a checkout or a snapshot of a very big repository. */
export const LONG_TIMEOUT_MS = 10 * 60_000;
const QUICK_TIMEOUT_MS = 60_000;

export interface GitCall {
  /** Where git runs (the repository or worktree it works on). */
  cwd: string;
  signal?: AbortSignal | undefined;
  /** A temporary index in place of the repository's (GIT_INDEX_FILE). */
  indexFile?: string;
  timeoutMs?: number;
  /** Variables added for this call (e.g. the identity of Deepdesk's own snapshot commits). */
  env?: Record<string, string>;
  maxBytes?: number;
}

/** Who Deepdesk's internal snapshot commits (never on a branch) are made by. */
export const SNAPSHOT_IDENTITY: Record<string, string> = {
  GIT_AUTHOR_NAME: 'Deepdesk',
  GIT_AUTHOR_EMAIL: 'deepdesk@localhost',
  GIT_COMMITTER_NAME: 'Deepdesk',
  GIT_COMMITTER_EMAIL: 'deepdesk@localhost',
};

export class GitRunner {
  private readonly env: NodeJS.ProcessEnv;
  private version: Promise<[number, number]> | undefined;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.env = gitEnv(env);
  }

  /** Runs git to its end whatever its exit code. */
  run(args: readonly string[], call: GitCall): Promise<GitRunResult> {
    return runGit(args, {
      cwd: call.cwd,
      env: call.env ? { ...this.env, ...call.env } : this.env,
      timeoutMs: call.timeoutMs ?? QUICK_TIMEOUT_MS,
      ...(call.signal ? { signal: call.signal } : {}),
      ...(call.indexFile !== undefined ? { indexFile: call.indexFile } : {}),
      ...(call.maxBytes !== undefined ? { maxBytes: call.maxBytes } : {}),
    });
  }

  /** git's stdout; a WorktreeError (`what`: reason) when it did not exit 0. */
  async out(args: readonly string[], call: GitCall, what: string): Promise<string> {
    const result = await this.run(args, call);
    if (result.code !== 0) throw gitError(result, what, call.timeoutMs ?? QUICK_TIMEOUT_MS);
    return result.stdout;
  }

  /** The first line of git's stdout, trimmed. */
  async line(args: readonly string[], call: GitCall, what: string): Promise<string> {
    return (await this.out(args, call, what)).split('\n')[0]!.trim();
  }

  /** Whether git exited 0 (for questions such as "does this ref exist?"). */
  async ok(args: readonly string[], call: GitCall): Promise<boolean> {
    const result = await this.run(args, call);
    if (result.aborted) throw new WorktreeError('cancelled', 'cancelled');
    if (result.spawnError !== undefined) throw gitError(result, 'git', QUICK_TIMEOUT_MS);
    return result.code === 0;
  }

  /** Refuses git older than 2.38 (`git merge-tree --write-tree` is needed to apply a worktree's changes). */
  async requireMergeTree(cwd: string): Promise<void> {
    this.version ??= this.line(['version'], { cwd }, 'git version').then(parseGitVersion);
    let version: [number, number];
    try {
      version = await this.version;
    } catch (err) {
      this.version = undefined;
      throw err;
    }
    const [major, minor] = version;
    if (major < 2 || (major === 2 && minor < 38)) {
      throw new WorktreeError(`worktrees need git 2.38 or newer (this is git ${major}.${minor}); please update git`, 'git_too_old');
    }
  }
}

/** `git version 2.39.5` → [2, 39]; an unreadable answer counts as new enough. */
export function parseGitVersion(text: string): [number, number] {
  const match = /(\d+)\.(\d+)/.exec(text);
  return match ? [Number(match[1]), Number(match[2])] : [99, 0];
}

/** A failed git call as a WorktreeError: `what: git's reason`. */
export function gitError(result: GitRunResult, what: string, timeoutMs: number): WorktreeError {
  if (result.aborted) return new WorktreeError('cancelled', 'cancelled');
  return new WorktreeError(`${what}: ${gitFailure(result, timeoutMs)}`, 'failed');
}

/** Splits git's `-z` output into its fields (without the empty one after the last NUL). */
export function nulFields(text: string): string[] {
  const fields = text.split('\0');
  if (fields.at(-1) === '') fields.pop();
  return fields;
}
