// Runs hook commands (SPEC §11) through the one process supervisor: as the person (no
// sandbox), in the folder, with an environment scrubbed of the app's secrets, the event's
// JSON on stdin, and a timeout (or Stop) that ends the whole process tree. Hooks that match
// one event run in parallel and their answers combine: deny > ask > allow.

import { startProcess } from '../../sandbox/supervisor';
import { PERMISSION_EVENTS, type HookEntry, type HookEventName, type HookRef } from './types';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../text/json-depth';
import { isObject } from '../../config/mcp-config';

/** What a hook reads on stdin: Claude Code's fields (`session_id` is the thread). */
export interface HookInput {
  session_id: string;
  /** The thread as a JSONL transcript in Claude Code's layout (transcript.ts). */
  transcript_path?: string;
  cwd: string;
  hook_event_name: HookEventName;
  permission_mode: string;
  tool_name?: string;
  tool_input?: unknown;
  tool_use_id?: string;
  tool_response?: unknown;
  prompt?: string;
  /** Stop: true when the agent is already going on because of a Stop hook. */
  stop_hook_active?: boolean;
  source?: 'startup';
  /** SubagentStart/SubagentStop: the task call. */
  agent_id?: string;
  /** PostToolUseFailure: the error the call gave. */
  error?: string;
  /** Notification: what it says. */
  message?: string;
  /** PreCompact/PostCompact: `manual` (/compact) or `auto`. */
  trigger?: 'manual' | 'auto';
  /** SessionEnd: why. */
  reason?: string;
  /** PreSkillShellCommand: the skill or command the line is of, the line, and who invoked it. */
  skill_name?: string;
  command_name?: string;
  command?: string;
  invoked_by?: 'user' | 'model';
}

export interface HookRunContext {
  /** The folder the hooks run in (real path): their cwd and `CLAUDE_PROJECT_DIR`. */
  folder: string;
  /** The app's environment, scrubbed into the hook's (default process.env). */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

/** One hook's run: how it ended and what it printed. */
export interface HookRun {
  hook: HookEntry;
  /** null when it was killed (timeout, Stop) or could not start. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** It could not be started, or was stopped. */
  failure?: string;
}

export type PermissionDecision = 'allow' | 'ask' | 'deny';

/** What the hooks of one event said, combined. */
export interface HookOutcome {
  /** PreToolUse, PreSkillShellCommand: the strictest decision any hook gave (deny > ask > allow). */
  permission?: { decision: PermissionDecision; reason: string; hook: HookRef };
  /** PreToolUse: the arguments to run instead (the first hook that gave some). */
  updatedInput?: { args: Record<string, unknown>; hook: HookRef };
  /** Exit 2 or `decision: "block"`: the hook's reason (stderr or `reason`). */
  block?: { reason: string; hook: HookRef };
  /** `additionalContext` (and, for SessionStart/UserPromptSubmit, plain stdout), in hook order. */
  context: string[];
  /** Hooks that failed (another exit code, a timeout, unreadable output): the person sees these; nothing is blocked. */
  errors: { message: string; hook: HookRef }[];
}

/** Printed output beyond this is not kept (a hook dumping a blob must not grow memory). */
const MAX_OUTPUT_CHARS = 1024 * 1024;

export async function runHook(hook: HookEntry, input: HookInput, context: HookRunContext): Promise<HookRun> {
  const base: HookRun = { hook, exitCode: null, stdout: '', stderr: '', timedOut: false };
  if (context.signal?.aborted) return { ...base, failure: 'stopped' };
  let child;
  try {
    child = await startProcess({
      role: 'hook',
      command: '/bin/sh',
      args: ['-c', hook.command],
      cwd: context.folder,
      env: { CLAUDE_PROJECT_DIR: context.folder, DEEPDESK_PROJECT_DIR: context.folder, ...(hook.pluginRoot !== undefined ? { CLAUDE_PLUGIN_ROOT: hook.pluginRoot } : {}) },
      ...(context.env ? { baseEnv: context.env } : {}),
      sandbox: false,
      logLines: 400,
    });
  } catch (err) {
    return { ...base, failure: err instanceof Error ? err.message : String(err) };
  }
  let stdout = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    if (stdout.length < MAX_OUTPUT_CHARS) stdout += chunk;
  });
  child.stdin.end(`${JSON.stringify(input)}\n`);
  let timedOut = false;
  let stopped = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void child.stop();
  }, hook.timeoutMs);
  const onAbort = (): void => {
    stopped = true;
    void child.stop();
  };
  context.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const exit = await child.exited;
    return {
      ...base,
      exitCode: timedOut || stopped ? null : exit.code,
      stdout: stdout.slice(0, MAX_OUTPUT_CHARS),
      stderr: child.logTail(),
      timedOut,
      ...(stopped ? { failure: 'stopped' } : {}),
    };
  } finally {
    clearTimeout(timer);
    context.signal?.removeEventListener('abort', onAbort);
  }
}

/** Runs every hook in parallel and combines what they said. */
export async function runHooks(hooks: readonly HookEntry[], input: HookInput, context: HookRunContext): Promise<HookOutcome> {
  const runs = await Promise.all(hooks.map((hook) => runHook(hook, input, context)));
  return combine(runs, input.hook_event_name);
}

const STRICTNESS: Record<PermissionDecision, number> = { allow: 0, ask: 1, deny: 2 };

/** Claude Code's rules for one run: exit 0 reads JSON stdout, exit 2 blocks with stderr, anything else is an error the person sees. */
export function combine(runs: readonly HookRun[], event: HookEventName): HookOutcome {
  const outcome: HookOutcome = { context: [], errors: [] };
  for (const run of runs) {
    const hook: HookRef = { command: run.hook.command, file: run.hook.file };
    if (run.failure === 'stopped') continue;
    if (run.failure !== undefined) {
      outcome.errors.push({ message: `could not run: ${run.failure}`, hook });
      continue;
    }
    if (run.timedOut) {
      outcome.errors.push({ message: `timed out after ${run.hook.timeoutMs / 1000} s and was stopped`, hook });
      continue;
    }
    if (run.exitCode === 2) {
      const reason = run.stderr.trim() || '(the hook gave no reason)';
      outcome.block ??= { reason, hook };
      if (PERMISSION_EVENTS.has(event)) setPermission(outcome, { decision: 'deny', reason, hook });
      continue;
    }
    if (run.exitCode !== 0) {
      const said = run.stderr.trim();
      outcome.errors.push({ message: `exited with code ${run.exitCode ?? 'none'}${said ? `: ${said}` : ''}`, hook });
      continue;
    }
    const printed = run.stdout.trim();
    if (printed === '') continue;
    let json: unknown;
    if (printed.startsWith('{')) {
      try {
        json = JSON.parse(printed);
      } catch {
        json = undefined;
      }
    }
    if (isObject(json) && nestsDeeperThan(json)) {
      outcome.errors.push({ message: `printed JSON nested deeper than ${MAX_JSON_DEPTH} levels; it is not read`, hook });
      continue;
    }
    if (!isObject(json)) {
      // Claude Code: plain stdout of these two events is context for the model.
      if (event === 'SessionStart' || event === 'UserPromptSubmit') outcome.context.push(printed);
      continue;
    }
    readJsonOutput(outcome, json, event, hook);
  }
  return outcome;
}

function readJsonOutput(outcome: HookOutcome, json: Record<string, unknown>, event: HookEventName, hook: HookRef): void {
  const reason = typeof json.reason === 'string' ? json.reason : '';
  if (json.decision === 'block') {
    const said = reason || '(the hook gave no reason)';
    outcome.block ??= { reason: said, hook };
    if (PERMISSION_EVENTS.has(event)) setPermission(outcome, { decision: 'deny', reason: said, hook });
  } else if (json.decision === 'approve' && PERMISSION_EVENTS.has(event)) {
    setPermission(outcome, { decision: 'allow', reason, hook });
  }
  // Claude Code reads `additionalContext` at the top level too (SessionStart hooks often put it there).
  if (typeof json.additionalContext === 'string' && json.additionalContext.trim() !== '') outcome.context.push(json.additionalContext.trim());
  const specific = json.hookSpecificOutput;
  if (!isObject(specific)) return;
  const decision = specific.permissionDecision;
  if (PERMISSION_EVENTS.has(event) && (decision === 'allow' || decision === 'ask' || decision === 'deny')) {
    const why = typeof specific.permissionDecisionReason === 'string' ? specific.permissionDecisionReason : reason;
    setPermission(outcome, { decision, reason: why || '(the hook gave no reason)', hook });
  }
  if (event === 'PreToolUse' && isObject(specific.updatedInput) && outcome.updatedInput === undefined) {
    outcome.updatedInput = { args: specific.updatedInput, hook };
  }
  if (typeof specific.additionalContext === 'string' && specific.additionalContext.trim() !== '') outcome.context.push(specific.additionalContext.trim());
}

function setPermission(outcome: HookOutcome, next: NonNullable<HookOutcome['permission']>): void {
  if (outcome.permission === undefined || STRICTNESS[next.decision] > STRICTNESS[outcome.permission.decision]) outcome.permission = next;
}
