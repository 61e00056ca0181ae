// Policy hooks in code (the seeds' PolicyWrapper; SPEC §11): a backend wrapper that asks
// policies before every file operation (and command, on a shell backend) and refuses what
// one denies without touching the backend. For code that embeds the harness; a person's
// hooks.json can be one of the policies (hookPolicy).

import { isShellBackend, type Backend, type ExecuteOptions, type ExecuteResult, type FileDownloadResponse, type FileUpload, type FileUploadResponse, type ShellBackend } from '../../backends/protocol';
import { matchesTool } from './matcher';
import { runHooks } from './runner';
import type { HookEntry } from './types';

export type PolicyOperation = 'read' | 'write' | 'edit' | 'delete' | 'execute';

/** One operation, described as the agent's tool call that does it (what a PreToolUse hook sees). */
export interface PolicyRequest {
  operation: PolicyOperation;
  /** The virtual path (for execute: none). */
  path?: string;
  /** The agent tool doing the same: `write_file`, `read_file`, `ls`, `glob`, `grep`, `edit_file`, `delete`, `execute`. */
  tool: string;
  /** That tool's arguments. */
  input: Record<string, unknown>;
}

export type PolicyDecision = { decision: 'allow' } | { decision: 'deny'; reason: string };

/** Returns undefined (or allow) to let the operation through. */
export type Policy = (request: PolicyRequest) => PolicyDecision | undefined | Promise<PolicyDecision | undefined>;

/** A denied operation's error text: `blocked by policy: REASON`. */
export const POLICY_BLOCK_PREFIX = 'blocked by policy: ';

/** The backend with every operation checked by the policies in order (the first deny wins). */
export function withPolicies(inner: Backend, policies: readonly Policy[]): Backend {
  const check = async (request: PolicyRequest): Promise<string | undefined> => {
    for (const policy of policies) {
      const decided = await policy(request);
      if (decided?.decision === 'deny') return `${POLICY_BLOCK_PREFIX}${decided.reason}`;
    }
    return undefined;
  };
  const read = (tool: string, path: string, input: Record<string, unknown>): PolicyRequest => ({ operation: 'read', path, tool, input });

  const wrapped: Backend = {
    async ls(path) {
      const error = await check(read('ls', path, { path }));
      return error !== undefined ? { error } : inner.ls(path);
    },
    async read(path, offset, limit) {
      const error = await check(read('read_file', path, { file_path: path, ...(offset !== undefined ? { offset } : {}), ...(limit !== undefined ? { limit } : {}) }));
      return error !== undefined ? { error } : inner.read(path, offset, limit);
    },
    async readRaw(path) {
      const error = await check(read('read_file', path, { file_path: path }));
      return error !== undefined ? { error } : inner.readRaw(path);
    },
    async write(path, content) {
      const error = await check({ operation: 'write', path, tool: 'write_file', input: { file_path: path, content } });
      return error !== undefined ? { error } : inner.write(path, content);
    },
    async edit(path, oldString, newString, replaceAll) {
      const input = { file_path: path, old_string: oldString, new_string: newString, ...(replaceAll !== undefined ? { replace_all: replaceAll } : {}) };
      const error = await check({ operation: 'edit', path, tool: 'edit_file', input });
      return error !== undefined ? { error } : inner.edit(path, oldString, newString, replaceAll);
    },
    async delete(path) {
      const error = await check({ operation: 'delete', path, tool: 'delete', input: { path } });
      return error !== undefined ? { error } : inner.delete(path);
    },
    async grep(pattern, path, glob, maxCount) {
      const error = await check(read('grep', path ?? '/', { pattern, ...(path !== undefined ? { path } : {}), ...(glob !== undefined ? { glob } : {}) }));
      return error !== undefined ? { error } : inner.grep(pattern, path, glob, maxCount);
    },
    async glob(pattern, path) {
      const error = await check(read('glob', path ?? '/', { pattern, ...(path !== undefined ? { path } : {}) }));
      return error !== undefined ? { error } : inner.glob(pattern, path);
    },
    // The read-before-write guard's identity of a file: no content, so no policy.
    stat: (path) => inner.stat(path),
    async uploadFiles(files: FileUpload[]): Promise<FileUploadResponse[]> {
      const refused = await Promise.all(files.map((f) => check({ operation: 'write', path: f.path, tool: 'write_file', input: { file_path: f.path } })));
      const allowed = files.filter((_, i) => refused[i] === undefined);
      const done = allowed.length > 0 ? await inner.uploadFiles(allowed) : [];
      let next = 0;
      return files.map((f, i) => (refused[i] !== undefined ? { path: f.path, error: 'permission_denied' } : done[next++]!));
    },
    async downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
      const refused = await Promise.all(paths.map((p) => check(read('read_file', p, { file_path: p }))));
      const allowed = paths.filter((_, i) => refused[i] === undefined);
      const done = allowed.length > 0 ? await inner.downloadFiles(allowed) : [];
      let next = 0;
      return paths.map((p, i) => (refused[i] !== undefined ? { path: p, error: 'permission_denied' } : done[next++]!));
    },
    ...(inner.linkTarget ? { linkTarget: (path: string) => inner.linkTarget!(path) } : {}),
    ...(inner.alwaysAskReason ? { alwaysAskReason: (path: string) => inner.alwaysAskReason!(path) } : {}),
    // The inner backend's own refusal; the policies are not asked here (a hook is a process,
    // not a cheap check), they still decide when the change runs.
    ...(inner.changeRefusal ? { changeRefusal: (path: string) => inner.changeRefusal!(path) } : {}),
  };
  if (!isShellBackend(inner)) return wrapped;
  const shell: ShellBackend = {
    ...wrapped,
    id: inner.id,
    async execute(command: string, options?: ExecuteOptions): Promise<ExecuteResult> {
      const error = await check({ operation: 'execute', tool: 'execute', input: { command } });
      return error !== undefined ? { output: `Error: ${error}`, exitCode: 1, truncated: false } : inner.execute(command, options);
    },
  };
  return shell;
}

export interface HookPolicyOptions {
  /** The folder the hooks run in (their cwd and `CLAUDE_PROJECT_DIR`). */
  folder: string;
  /** `session_id` on the hooks' stdin (default `policy`). */
  sessionId?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * The person's PreToolUse hooks as a policy: each operation runs the hooks whose matcher
 * names its tool, with the same stdin; a deny (exit 2, `permissionDecision: "deny"`,
 * `decision: "block"`) refuses it. `allow`, `ask` and `updatedInput` have no meaning here
 * (there is nobody to ask, and the caller chose the arguments).
 */
export function hookPolicy(hooks: () => readonly HookEntry[], options: HookPolicyOptions): Policy {
  return async (request) => {
    const matching = hooks().filter((hook) => hook.event === 'PreToolUse' && matchesTool(hook.matcher, request.tool));
    if (matching.length === 0) return undefined;
    const outcome = await runHooks(
      matching,
      { session_id: options.sessionId ?? 'policy', cwd: options.folder, hook_event_name: 'PreToolUse', permission_mode: 'default', tool_name: request.tool, tool_input: request.input },
      { folder: options.folder, ...(options.env ? { env: options.env } : {}) },
    );
    if (outcome.permission?.decision === 'deny') return { decision: 'deny', reason: `hook ${outcome.permission.hook.command}: ${outcome.permission.reason}` };
    return undefined;
  };
}
