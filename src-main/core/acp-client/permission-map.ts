// An external agent's `session/request_permission` as Deepdesk's operation (SPEC §22): the
// requests differ by agent — the kind may only be in an earlier `tool_call` update (Claude
// Code), the command in `title` (Gemini CLI) or an argv in `rawInput` (Codex), the paths in
// `locations` — and each is met by the person's rules first: a deny rule or a protected path
// answers no without asking, an allow rule answers yes; anything else asks the person.
// Deepdesk answers only "allow once" or "reject once", never an agent's own "always".
import type { PermissionOption, RequestPermissionResponse, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import { shellWord } from '../text/shell-quote';
import { evaluatePermission, type PermissionRule } from '../agent/permissions/rules';
import { protectedPattern, protectedReason } from '../agent/permissions/protected-paths';
import { hostToVirtual } from './paths';

/** What the agent said of a tool call so far (its `tool_call` and `tool_call_update`s). */
export interface KnownToolCall {
  kind?: ToolKind | null;
  title?: string | null;
  rawInput?: unknown;
  locations?: ToolCallLocation[] | null;
}

/** The operation an agent's request stands for, as Deepdesk's tools would name it. */
export interface AgentOperation {
  /** Deepdesk's tool whose rules apply (`write_file`, `edit_file`, `delete_file`, `read_file`, `grep`, `execute`), or the agent's own kind. */
  tool: string;
  /** Virtual paths in the folder (`/src/a.ts`). */
  paths: string[];
  /** Host paths outside the folder. */
  outside: string[];
  /** The command, for `execute`. */
  command?: string;
  /** The agent's title of the call, for the person. */
  title: string;
}

const TOOL_OF_KIND: Partial<Record<ToolKind, string>> = { edit: 'edit_file', delete: 'delete_file', move: 'write_file', read: 'read_file', search: 'grep', execute: 'execute' };

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The command a request names: an argv in `rawInput.command` (Codex), a string there (Claude Code), else the title (Gemini CLI). */
function commandOf(call: KnownToolCall): string {
  const input = record(call.rawInput);
  const command = input.command ?? input.cmd;
  if (Array.isArray(command) && command.every((w) => typeof w === 'string')) {
    // `bash -lc SCRIPT` is the script itself.
    const words = command as string[];
    if (words.length === 3 && /(^|\/)(ba|z|da)?sh$/.test(words[0]!) && /^-l?c$/.test(words[1]!)) return words[2]!;
    return words.map((w) => shellWord(w)).join(' ');
  }
  if (typeof command === 'string') return command;
  return call.title ?? '';
}

function pathsOf(call: KnownToolCall, folder: string): { paths: string[]; outside: string[] } {
  const named: string[] = [];
  for (const location of call.locations ?? []) if (typeof location.path === 'string') named.push(location.path);
  const input = record(call.rawInput);
  for (const key of ['file_path', 'path', 'abs_path', 'notebook_path']) {
    const value = input[key];
    if (typeof value === 'string') named.push(value);
  }
  const paths = new Set<string>();
  const outside = new Set<string>();
  for (const p of named) {
    const virtual = hostToVirtual(folder, p);
    if (virtual === undefined) outside.add(p);
    else paths.add(virtual);
  }
  return { paths: [...paths], outside: [...outside] };
}

/** The operation of a request, from the request's tool call and what the agent said of it before. */
export function operationOfRequest(call: KnownToolCall, folder: string): AgentOperation {
  const kind = call.kind ?? undefined;
  const tool = (kind && TOOL_OF_KIND[kind]) ?? `agent:${kind ?? 'other'}`;
  const { paths, outside } = pathsOf(call, folder);
  const title = call.title ?? tool;
  if (tool === 'execute') return { tool, paths, outside, command: commandOf(call), title };
  return { tool, paths, outside, title };
}

export type RuleAnswer = { answer: 'allow' | 'deny'; reason: string } | { answer: 'ask'; reason: string };

/** The person's rules on an operation: deny and protected paths first, then allow; otherwise the person is asked. */
export function decideByRules(operation: AgentOperation, rules: readonly PermissionRule[]): RuleAnswer {
  if (operation.tool === 'write_file' || operation.tool === 'edit_file' || operation.tool === 'delete_file') {
    for (const path of operation.paths) {
      const pattern = protectedPattern(path);
      if (pattern !== null) return { answer: 'deny', reason: protectedReason(pattern).replace(/always ask$/, 'are refused to other agents') };
    }
  }
  if (operation.outside.length > 0 && operation.tool !== 'execute') return { answer: 'ask', reason: `a path outside the folder (${operation.outside[0]})` };
  const args: Record<string, unknown> =
    operation.tool === 'execute' ? { command: operation.command ?? '' } : operation.paths.length > 0 ? { file_path: operation.paths[0] } : {};
  // Every path must be allowed for the call to be; the first denied or asking one decides.
  const verdicts = (operation.paths.length > 1 && operation.tool !== 'execute' ? operation.paths : [undefined]).map((p) =>
    evaluatePermission({ tool: operation.tool, args: p === undefined ? args : { file_path: p } }, rules),
  );
  const denied = verdicts.find((v) => v.decision === 'deny');
  if (denied) return { answer: 'deny', reason: denied.reason };
  const asking = verdicts.find((v) => v.decision === 'ask');
  if (asking) return { answer: 'ask', reason: asking.reason };
  return { answer: 'allow', reason: verdicts[0]?.reason ?? 'allowed' };
}

/** The answer to send: the agent's "allow once" or "reject once" option; never an "always". Without such an option, cancelled. */
export function permissionAnswer(options: readonly PermissionOption[], allow: boolean): RequestPermissionResponse {
  const option = options.find((o) => o.kind === (allow ? 'allow_once' : 'reject_once'));
  if (!option) return { outcome: { outcome: 'cancelled' } };
  return { outcome: { outcome: 'selected', optionId: option.optionId } };
}
