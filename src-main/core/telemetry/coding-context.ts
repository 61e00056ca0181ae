// What a coding agent's trace says about where it worked (SPEC §17, LangSmith): the folder,
// its git branch, HEAD and `origin`, read once per session with the system git through the
// one safe git runner (no hooks, no fsmonitor, no prompts, a deadline). The keys follow
// Deep Agents' `coding-agent-v1` trace contract (langchain-ai/deepagents,
// libs/code/deepagents_code/config.py `build_coding_agent_metadata` and _git.py).

import { stat } from 'node:fs/promises';
import { gitEnv, runGit, type GitRunResult } from '../git/run-git';

export interface CodingTraceContext {
  /** The project folder (a path, or the ssh:// URL of a remote folder). */
  cwd: string;
  /** The checked-out branch; `HEAD` when detached (as Deep Agents reports it). */
  gitBranch?: string;
  /** HEAD's full commit id. */
  gitCommitSha?: string;
  /** `origin` as `https://<host>/<path>`, never with credentials. */
  repositoryUrl?: string;
  /** Where the agent's commands run (Deep Agents omits `none`). */
  sandboxType: string;
}

/** Each git call's deadline; the calls run side by side, so this bounds the whole lookup. */
const GIT_TIMEOUT_MS = 3_000;
const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * The trace context of `folder`. A folder that is not in a repository (or a remote folder,
 * or git missing, slow or refusing the repository) just has no git fields; never throws.
 */
export async function codingTraceContext(folder: string, sandboxType: string, signal?: AbortSignal): Promise<CodingTraceContext> {
  const context: CodingTraceContext = { cwd: folder, sandboxType };
  if (!(await isLocalFolder(folder))) return context;
  const options = { cwd: folder, env: gitEnv(process.env), timeoutMs: GIT_TIMEOUT_MS, ...(signal ? { signal } : {}) };
  const failed: GitRunResult = { code: null, stdout: '', stderr: '', timedOut: false, aborted: false };
  const run = (args: string[]): Promise<GitRunResult> => runGit(args, options).catch(() => failed);
  const [head, sha, origin] = await Promise.all([
    run(['symbolic-ref', '-q', '--short', 'HEAD']),
    run(['rev-parse', '-q', '--verify', 'HEAD']),
    run(['config', '--get', 'remote.origin.url']),
  ]);
  // symbolic-ref: 0 on a branch, 1 when HEAD is detached, 128 outside a repository.
  const inRepository = head.code === 0 || head.code === 1;
  if (!inRepository) return context;
  const commit = sha.code === 0 ? sha.stdout.trim() : '';
  if (SHA.test(commit)) context.gitCommitSha = commit;
  const branch = head.code === 0 ? head.stdout.trim() : '';
  if (branch !== '') context.gitBranch = branch;
  else if (context.gitCommitSha !== undefined) context.gitBranch = 'HEAD';
  if (origin.code === 0) {
    const url = repositoryUrlOf(origin.stdout.trim());
    if (url !== undefined) context.repositoryUrl = url;
  }
  return context;
}

/**
 * A remote URL as the contract records it: `https://<host>/<path>` without `.git`, user,
 * password, token, port, query or fragment, for https, ssh and scp-like (`git@host:org/repo`)
 * remotes alike. Local remotes (a path, `file://`) and what cannot be read give undefined.
 */
export function repositoryUrlOf(remote: string): string | undefined {
  const url = remote.trim();
  if (url === '') return undefined;
  let host: string;
  let path: string;
  if (url.includes('://')) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    host = parsed.hostname.toLowerCase();
    path = parsed.pathname;
  } else {
    // scp-like: [user@]host:path. A local path (`/srv/repo`, `./repo`, `C:\repo`) is none.
    if (/^[./~\\]/.test(url) || /^[a-z]:[\\/]/i.test(url)) return undefined;
    const colon = url.indexOf(':');
    if (colon < 0) return undefined;
    const userHost = url.slice(0, colon);
    if (userHost.includes('/')) return undefined;
    host = (userHost.slice(userHost.lastIndexOf('@') + 1) || '').toLowerCase();
    path = url.slice(colon + 1);
  }
  path = path.replace(/^\/+|\/+$/g, '').replace(/\.git$/, '').replace(/\/+$/, '');
  if (!/^[a-z0-9.\-_[\]:]+$/.test(host) || path === '' || /[\s@?#]/.test(path)) return undefined;
  return `https://${host}/${path}`;
}

/** A folder on this machine that exists (not a remote folder's ssh:// URL). */
async function isLocalFolder(folder: string): Promise<boolean> {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(folder)) return false;
  return stat(folder).then(
    (st) => st.isDirectory(),
    () => false,
  );
}
