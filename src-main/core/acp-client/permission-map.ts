// Another agent's request as Deepdesk's operation (SPEC §22): the tool whose rules apply and
// the arguments Deepdesk's own tool would have (`write_file {file_path}`, `execute {command}`),
// decided at the one decision point (core/agent/decision.ts). Requests differ by agent: the
// kind may be only in an earlier `tool_call` update, the command in `title` or as an argv in
// `rawInput`, the paths in `locations`. Deepdesk answers only "allow once" or "reject once",
// never an agent's own "always".
import type { PermissionOption, RequestPermissionResponse, ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import { shellWord } from '../text/shell-quote';
import { hostToVirtual } from './paths';

/** What the agent said of a tool call so far (its `tool_call` and `tool_call_update`s). */
export interface KnownToolCall {
  kind?: ToolKind | null;
  title?: string | null;
  rawInput?: unknown;
  locations?: ToolCallLocation[] | null;
  content?: ToolCallContent[] | null;
}

/** The operation an agent's request stands for, as Deepdesk's tools would name it. */
export interface AgentOperation {
  /** Deepdesk's tool whose rules apply (`write_file`, `edit_file`, `delete_file`, `read_file`, `grep`, `execute`), or `agent:KIND`. */
  tool: string;
  /** Its arguments as Deepdesk's tool has them: the first path as `file_path`, or the `command`. */
  args: Record<string, unknown>;
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

/** Deepdesk's tool an agent's kind of call stands for, or `agent:KIND` for one it has none of. */
export function toolOfKind(kind: ToolKind | null | undefined): string {
  return (kind && TOOL_OF_KIND[kind]) ?? `agent:${kind ?? 'other'}`;
}

/** An argv as the command line it runs: `sh -c SCRIPT` (bash, zsh, dash; `-lc`) is the script itself. */
export function commandLine(words: readonly string[]): string {
  if (words.length === 3 && /(^|\/)(ba|z|da)?sh$/.test(words[0]!) && /^-l?c$/.test(words[1]!)) return words[2]!;
  return words.map((w) => shellWord(w)).join(' ');
}

/** How an agent's request names what it would do: the command (an `execute`) and the paths, as the agent gave them (its vendor's module reads them, app/agents/vendors). */
export type RequestShape = (call: KnownToolCall) => { command?: string; paths: string[] };

/** What every ACP request says in the protocol's own fields: the paths of `locations`, the command as the `title`. */
export const PROTOCOL_SHAPE: RequestShape = (call) => ({
  paths: (call.locations ?? []).map((l) => l.path).filter((p): p is string => typeof p === 'string'),
  ...(call.kind === 'execute' ? { command: call.title ?? '' } : {}),
});

/** The operation of a request, from the request's tool call and what the agent said of it before. */
export function operationOfRequest(call: KnownToolCall, folder: string, shape: RequestShape = PROTOCOL_SHAPE): AgentOperation {
  const tool = toolOfKind(call.kind);
  const named = shape(call);
  const paths = new Set<string>();
  const outside = new Set<string>();
  for (const p of named.paths) {
    const virtual = hostToVirtual(folder, p);
    if (virtual === undefined) outside.add(p);
    else paths.add(virtual);
  }
  const title = call.title ?? tool;
  if (tool !== 'execute') return { tool, args: paths.size > 0 ? { file_path: [...paths][0] } : {}, paths: [...paths], outside: [...outside], title };
  const command = named.command ?? call.title ?? '';
  return { tool, args: { command }, paths: [...paths], outside: [...outside], command, title };
}

/** The answer to send: the agent's "allow once" or "reject once" option; never an "always". Without such an option, cancelled. */
export function permissionAnswer(options: readonly PermissionOption[], allow: boolean): RequestPermissionResponse {
  const option = options.find((o) => o.kind === (allow ? 'allow_once' : 'reject_once'));
  if (!option) return { outcome: { outcome: 'cancelled' } };
  return { outcome: { outcome: 'selected', optionId: option.optionId } };
}
