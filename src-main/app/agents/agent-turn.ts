// One turn of another agent as the thread's (SPEC §22): its ACP session updates translated into
// the thread's events and history, one function per kind of update (text, tool calls with their
// diffs, the plan as todos, the context meter); its questions asked and told as Deepdesk's own
// (core/agent/asking.ts), naming the agent; at its end, the calls it left open closed and the
// changes of its own process recorded as calls of their own.
import { randomUUID } from 'node:crypto';
import { askAndTell, tellApproval, tellRuled, type AskedCall, type Telling } from '../../core/agent/asking';
import type { SpendNode } from '../../core/spend/spend-tree';
import { reviewLayerWrites, type Answerer, type ApprovalBroker, type DecisionContext } from '../../core/agent/decision';
import { answererFor, type ReviewSetup } from '../../core/agent/review/answerer';
import type { AgentEventBody, ThreadState } from '../../core/agent/types';
import type { AgentApprovalRequest, SessionUpdate } from '../../core/acp-client/acp-client';
import { hostToVirtual } from '../../core/acp-client/paths';
import { toolOfKind } from '../../core/acp-client/permission-map';
import { toVirtual, type Change, type ChangeStatus } from '../../core/checkpoints/types';
import type { ToolCall } from '../../core/models/types';
import { NOOP_RUN, type RunObserver, type ToolCallObserver } from '../../core/telemetry/observer';
import type { ReviewLayer } from '../../core/sandbox/types';
import { AGENT_CONFIG_PATHS } from './vendors/catalog';
import { describeChange } from '../../core/tools/file-change';

/** A call of the agent's in this turn: where its message is in the history, and what it was told with. */
interface KnownCall {
  call: ToolCall;
  done: boolean;
  at: number;
  title: string;
  rawInput: unknown;
  /** The paths it said it works on (`locations`), as the folder's. */
  paths?: string[];
  /** The terminal it said the call runs in (Claude Code's Bash, in an update before its end). */
  terminal?: string;
}

/** Who answers the turn's questions: the run's broker, its reviewer (SPEC §23) and the budget its calls are held in, the mode and rules shown to it. */
export interface TurnAnswering {
  broker: ApprovalBroker;
  review?: { setup: ReviewSetup; budget?: SpendNode };
  decided(): Pick<DecisionContext, 'mode' | 'rules'>;
  /** The agent's turn under way in the audit: a review's call and span go under it. */
  observer(): RunObserver | undefined;
}

/** One turn's state, handed to each translation. */
export interface AgentTurn {
  readonly state: ThreadState;
  /** The agent's name as the thread says it, and the folder its paths are in. */
  readonly label: string;
  readonly folder: string;
  readonly signal: AbortSignal;
  readonly answering: TurnAnswering;
  /** What a terminal of the agent's printed (its command's output), while the session has it. */
  terminalOutput?(terminalId: string): string | undefined;
  emit(event: AgentEventBody): void;
  persist(): void;
  /** The thread's id of one of the agent's calls in this turn. */
  idOf(acpId: string): string;
  /** What the agent has said since the last message of the history. */
  answer: string;
  readonly calls: Map<string, KnownCall>;
  /** The calls the person refused (by the agent's id): one it leaves open ends refused, not stopped. */
  readonly refused: Set<string>;
}

export function newTurn(given: Omit<AgentTurn, 'idOf' | 'answer' | 'calls' | 'refused'> & { name: string }): AgentTurn {
  const { name, ...rest } = given;
  const turnId = randomUUID().slice(0, 8);
  return { ...rest, idOf: (acpId) => `${name}-${turnId}-${acpId}`, answer: '', calls: new Map(), refused: new Set() };
}

type UpdateOf<K extends SessionUpdate['sessionUpdate']> = Extract<SessionUpdate, { sessionUpdate: K }>;
type ToolUpdate = UpdateOf<'tool_call' | 'tool_call_update'>;

function messageChunk(turn: AgentTurn, update: UpdateOf<'agent_message_chunk'>): void {
  if (update.content.type !== 'text') return;
  turn.answer += update.content.text;
  turn.emit({ type: 'text', text: update.content.text });
}

function toolCall(turn: AgentTurn, update: ToolUpdate): void {
  const { state, calls } = turn;
  let known = calls.get(update.toolCallId);
  // A read or write served to it is recorded, unless it is of a call it told that is going on (recorded as that one).
  const served = update.toolCallId.startsWith('fs_read_') ? 'read_file' : update.toolCallId.startsWith('fs_write_') ? 'edit_file' : undefined;
  if (served !== undefined && [...calls.values()].some((c) => !c.done && c.call.name === served)) return;
  if (known === undefined && update.sessionUpdate === 'tool_call') {
    known = { call: { id: turn.idOf(update.toolCallId), name: '', args: {}, argsText: '{}' }, done: false, at: state.messages.push({ role: 'assistant', content: turn.answer }) - 1, title: '', rawInput: undefined };
    calls.set(update.toolCallId, known);
    turn.answer = '';
  }
  if (known === undefined) return;
  const terminal = update.content?.find((c) => c.type === 'terminal');
  if (terminal?.type === 'terminal') known.terminal = terminal.terminalId;
  if (update.sessionUpdate === 'tool_call' || update.title != null || update.rawInput != null || update.locations != null) told(turn, known, update);
  if (!known.done && (update.status === 'completed' || update.status === 'failed')) finishCall(turn, known, update);
  turn.persist();
}

function plan(turn: AgentTurn, update: UpdateOf<'plan'>): void {
  turn.state.todos = update.entries.map((e) => ({ content: e.content, status: e.status }));
  turn.emit({ type: 'todos', todos: turn.state.todos });
}

/** The context meter only: what it costs is the metering proxy's (the ledger). */
function usage(turn: AgentTurn, update: UpdateOf<'usage_update'>): void {
  turn.state.contextTokens = update.used;
  turn.emit({ type: 'usage', usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, total: turn.state.usage, contextTokens: update.used, contextWindow: update.size });
}

const TRANSLATIONS: { [K in SessionUpdate['sessionUpdate']]?: (turn: AgentTurn, update: UpdateOf<K>) => void } = {
  agent_message_chunk: messageChunk,
  tool_call: toolCall,
  tool_call_update: toolCall,
  plan,
  usage_update: usage,
};

/** One session update as the thread's events and history (the kinds it has none for are left out). */
export function translate(turn: AgentTurn, update: SessionUpdate): void {
  (TRANSLATIONS[update.sessionUpdate] as ((turn: AgentTurn, update: SessionUpdate) => void) | undefined)?.(turn, update);
}

/** What the agent said since the last message, into the history. */
export function flush(turn: AgentTurn): void {
  if (turn.answer !== '') turn.state.messages.push({ role: 'assistant', content: turn.answer });
  turn.answer = '';
}

/** A call told, or told again with more of it (its input, its command): a new history message each time, so the thread saves it again. */
function told(turn: AgentTurn, known: KnownCall, update: ToolUpdate): void {
  known.title = update.title ?? known.title;
  known.rawInput = update.rawInput ?? known.rawInput;
  if (update.locations) known.paths = update.locations.map((l) => hostToVirtual(turn.folder, l.path) ?? l.path);
  const name = update.sessionUpdate === 'tool_call' ? toolOfKind(update.kind) : known.call.name;
  const args = argsOfCall(name, known.title, known.rawInput, known.paths);
  known.call = { ...known.call, name, args, argsText: JSON.stringify(args) };
  turn.state.messages[known.at] = { role: 'assistant', content: turn.state.messages[known.at]!.content as string, toolCalls: [known.call] };
  turn.emit({ type: 'tool_call', id: known.call.id, name, args });
}

type CallEnd = { status?: string | null; content?: Array<Record<string, unknown>> | null; rawOutput?: unknown };

function finishCall(turn: AgentTurn, known: KnownCall, update: CallEnd): void {
  known.done = true;
  const isError = update.status === 'failed';
  const parts: string[] = [];
  let change;
  for (const item of update.content ?? []) {
    if (item.type === 'content') {
      const block = item.content as { type?: string; text?: string } | undefined;
      if (block?.type === 'text' && typeof block.text === 'string') parts.push(block.text);
    } else if (item.type === 'diff' && typeof item.path === 'string' && typeof item.newText === 'string') {
      const path = hostToVirtual(turn.folder, item.path) ?? item.path;
      const oldText = typeof item.oldText === 'string' ? item.oldText : undefined;
      change ??= describeChange(path, oldText === undefined ? { exists: false } : { exists: true, text: oldText }, { exists: true, text: item.newText }) ?? undefined;
      parts.push(`${oldText === undefined ? 'Wrote' : 'Edited'} ${path}`);
    } else if (item.type === 'terminal') parts.push(ranIn(turn, String(item.terminalId)) ?? '(ran in the Terminal)');
  }
  if (parts.length === 0) parts.push(...outputOf(update.rawOutput));
  // Its command's own output where the agent told only the terminal it ran in.
  const ran = parts.length === 0 && known.terminal !== undefined ? ranIn(turn, known.terminal) : undefined;
  if (ran !== undefined) parts.push(ran);
  const output = parts.join('\n') || (isError ? 'failed' : 'done');
  const { id, name } = known.call;
  turn.state.messages.push({ role: 'tool', toolCallId: id, toolName: name, content: output, ...(isError ? { isError } : {}), ...(change ? { change } : {}) });
  turn.emit({ type: 'tool_result', id, name, output, isError, ...(change ? { change } : {}) });
}

/** Calls the agent never reported the end of: closed in the history so it reads whole (`stopped`: cut short, not done). */
export function closeOpenCalls(turn: AgentTurn, stopped: boolean): void {
  const failed = (text: string): CallEnd => ({ status: 'failed', content: [{ type: 'content', content: { type: 'text', text } }] });
  const end = stopped ? failed('Stopped before it finished.') : { status: 'completed', content: [] };
  for (const [acpId, known] of turn.calls) if (!known.done) finishCall(turn, known, turn.refused.has(acpId) ? failed(`Error: the person rejected this ${known.call.name} call; it was not run.`) : end);
}

/** A change of the agent's own process as the file tool that would have made it. */
const OWN_CHANGE_TOOLS: Readonly<Record<ChangeStatus, string>> = { added: 'write_file', modified: 'edit_file', deleted: 'delete_file' };

/** The paths the turn's calls (from history message `from` on) name as changed: what went through Deepdesk. */
function namedPaths(turn: AgentTurn, from: number): Set<string> {
  const named = new Set<string>();
  for (const m of turn.state.messages.slice(from)) {
    if (m.role === 'tool' && m.change) named.add(m.change.path);
    for (const call of m.role === 'assistant' ? (m.toolCalls ?? []) : []) {
      const path = (call.args as { file_path?: unknown } | null)?.file_path;
      if (typeof path === 'string' && Object.values(OWN_CHANGE_TOOLS).includes(call.name)) named.add(hostToVirtual(turn.folder, path) ?? path);
    }
  }
  return named;
}

/**
 * SPEC §23 (5) for what the agent's own process wrote (Codex, Gemini CLI and OpenCode write files
 * themselves, where no request of theirs was decided): with review on, the turn's sensitive
 * changes no call named are asked about at its end, as a command's layer is; those refused are
 * put back as they were before the turn (`putBack`). The refused paths, each with why.
 */
export async function reviewOwnChanges(turn: AgentTurn, from: number, changes: readonly Change[], text: (state: Change['before']) => string | null, putBack: (rels: string[]) => Promise<void>): Promise<ReadonlyMap<string, string>> {
  const review = layerReview(turn, `(${turn.label}'s own process)`);
  const named = namedPaths(turn, from);
  const writes = changes.filter((c) => !named.has(toVirtual(c.path)) && c.after?.type !== 'd').map((c) => ({ path: toVirtual(c.path), contents: () => ({ before: text(c.before), after: text(c.after) }) }));
  const refused = review && writes.length > 0 ? await review(writes) : new Map<string, string>();
  if (refused.size > 0) await putBack([...refused.keys()].map((path) => path.slice(1)));
  return refused;
}

/** The turn's changes no call of it names (made in the agent's own process), each recorded as a call of its own: the audit record says what it changed (or why it was put back). */
export function ownChanges(turn: AgentTurn, from: number, files: ReadonlyArray<{ path: string; status: ChangeStatus }>, refused: ReadonlyMap<string, string> = new Map()): void {
  const named = namedPaths(turn, from);
  for (const [i, file] of files.filter((f) => !named.has(f.path)).entries()) {
    const name = OWN_CHANGE_TOOLS[file.status];
    const args = { file_path: file.path, title: `${file.status} in its own process` };
    const call: ToolCall = { id: turn.idOf(`own-${i}`), name, args, argsText: JSON.stringify(args) };
    const why = refused.get(file.path);
    const output = why !== undefined ? `Error: put back as it was before the turn: ${why}` : `${file.status[0]!.toUpperCase()}${file.status.slice(1)} by ${turn.label} in its own process`;
    turn.state.messages.push({ role: 'assistant', content: '', toolCalls: [call] }, { role: 'tool', toolCallId: call.id, toolName: name, content: output, ...(why !== undefined ? { isError: true } : {}) });
    turn.emit({ type: 'tool_call', id: call.id, name, args });
    turn.emit({ type: 'tool_result', id: call.id, name, output, isError: why !== undefined });
  }
}

/** The call a terminal is opened for, when the agent told it and it goes on (Claude Code's Bash): the terminal's question is that call's card, not a second one. */
function ownerOf(turn: AgentTurn, request: AgentApprovalRequest): [string, KnownCall] | undefined {
  const { operation, toolCallId } = request;
  if (operation.tool !== 'execute' || (toolCallId !== undefined && turn.calls.has(toolCallId))) return undefined;
  return [...turn.calls].find(([, c]) => !c.done && c.call.name === 'execute' && (c.call.args as { command?: unknown }).command === operation.command);
}

/** The request as the call its card shows (`verb`: asks, or asked when the rules answered). */
function askedCall(turn: AgentTurn, request: AgentApprovalRequest, verb: string): AskedCall {
  const id = ownerOf(turn, request)?.[1].call.id ?? turn.idOf(request.toolCallId ?? randomUUID());
  return { id, name: request.operation.tool, args: argsOf(request), reason: `${request.agent} ${verb}: ${request.reason}`, ...(request.why !== undefined ? { why: request.why } : {}) };
}

/**
 * The agent's request asked of whoever answers the run, as Deepdesk's own call's question; true
 * allows once, a text refuses saying why. With a reviewer, its call is the thread's (metered
 * under the agent's turn: a `reviewer` ledger row in the thread's budget, a review span under the request's).
 */
export async function askRequest(turn: AgentTurn, request: AgentApprovalRequest, signal: AbortSignal): Promise<boolean | string> {
  const { state } = turn;
  const call = askedCall(turn, request, 'asks');
  const { answerer, span } = answererOf(turn, call);
  const tell: Telling = { emit: turn.emit, span };
  try {
    const question = { threadId: state.id, toolCallId: call.id, toolName: call.name, args: call.args, reason: request.reason, ...(request.why !== undefined ? { why: request.why } : {}), agent: request.agent, ...(request.diff !== undefined ? { diff: request.diff } : {}) };
    const { decision, review } = await askAndTell(question, call, answerer, AbortSignal.any([signal, turn.signal]), tell, false);
    const acpId = ownerOf(turn, request)?.[0] ?? request.toolCallId;
    if (decision.type !== 'approve' && acpId !== undefined) turn.refused.add(acpId);
    return decision.type === 'approve' || (review !== undefined && `denied by the reviewer: ${review.rationale}`);
  } catch (err) {
    tellApproval(tell, call, 'rejected');
    throw err;
  } finally {
    span?.end({ output: '', isError: false });
  }
}

/** Who answers a question of the turn about `call`, and its span (with a reviewer: its call and span go under the agent's turn). */
function answererOf(turn: AgentTurn, call: AskedCall): { answerer: Answerer; span?: ToolCallObserver } {
  const { state, answering } = turn;
  const observer = answering.review !== undefined ? answering.observer() : undefined;
  const span = observer?.toolCall(call);
  const meter = { observer: observer ?? NOOP_RUN, ...(answering.review?.budget ? { budget: answering.review.budget } : {}) };
  const context = { state, persist: async () => turn.persist(), emit: turn.emit, meter, contextWindow: () => STAND_IN_CONTEXT_WINDOW, span: () => span };
  return { answerer: answererFor(context, answering.broker, answering.review?.setup, answering.decided()), ...(span ? { span } : {}) };
}

/**
 * With review on (SPEC §23 (5)), the sensitive writes in the write layer of a command the agent's
 * terminal ran are asked about before the layer is applied, as Deepdesk's own command's are.
 */
export function layerReview(turn: AgentTurn, command: string): ReviewLayer | undefined {
  if (turn.answering.review === undefined) return undefined;
  const call: AskedCall = { id: turn.idOf(`layer-${randomUUID().slice(0, 8)}`), name: 'execute', args: { command }, reason: `${turn.label}'s command wrote files that steer programs` };
  return async (writes) => {
    const { answerer, span } = answererOf(turn, call);
    try {
      return await reviewLayerWrites({ threadId: turn.state.id, toolCallId: call.id, toolName: 'execute', args: call.args, agent: turn.label }, writes, answerer, turn.signal, AGENT_CONFIG_PATHS);
    } finally {
      span?.end({ output: '', isError: false });
    }
  };
}

/** A request the rules answered without asking, told in the thread's history. */
export function tellRuledRequest(turn: AgentTurn, request: AgentApprovalRequest, answer: 'allow' | 'deny'): void {
  tellRuled({ emit: turn.emit }, askedCall(turn, request, 'asked'), answer === 'deny' ? 'denied' : 'approved');
}

/** The context window a thread of another agent's is told until the agent reports its own. */
export const STAND_IN_CONTEXT_WINDOW = 200_000;

/**
 * A call's arguments as Deepdesk's own: a command by its line (an argv, `sh -c LINE` or `bash -lc
 * LINE`, is told as the line), a file by its path (where its input names none, the first of its
 * `locations`: Codex's edits), the agent's title kept beside what its input says.
 */
function argsOfCall(name: string, title: string, rawInput: unknown, paths: readonly string[] = []): Record<string, unknown> {
  const input = typeof rawInput === 'object' && rawInput !== null ? (rawInput as Record<string, unknown>) : {};
  const located = paths[0] !== undefined && typeof input.file_path !== 'string' && typeof input.path !== 'string' ? { file_path: paths[0] } : {};
  if (name !== 'execute') return { title, ...located, ...input };
  const given = input.command ?? input.cmd;
  const argv = Array.isArray(given) && given.every((w) => typeof w === 'string') ? (given as string[]) : undefined;
  const line = typeof given === 'string' ? given : argv === undefined ? undefined : argv.length === 3 && /^(ba|z)?sh$/.test(argv[0]!.split('/').at(-1)!) && /^-l?c$/.test(argv[1]!) ? argv[2] : argv.join(' ');
  const { command: _command, cmd: _cmd, ...rest } = input;
  return { ...(line !== undefined ? { command: line } : {}), title, ...rest };
}

/** What the agent's terminal printed, without its last newline. */
function ranIn(turn: AgentTurn, terminalId: string): string | undefined {
  return turn.terminalOutput?.(terminalId)?.replace(/\n$/, '');
}

/** What an agent's own run of a tool printed, as text: its output's fields and exit code (or a tool result's text blocks), never its JSON. */
function outputOf(raw: unknown): string[] {
  if (typeof raw === 'string') return raw === '' ? [] : [raw];
  if (Array.isArray(raw)) return raw.flatMap((block: { type?: unknown; text?: unknown } | null) => (block?.type === 'text' && typeof block.text === 'string' && block.text !== '' ? [block.text.replace(/\n$/, '')] : []));
  if (typeof raw !== 'object' || raw === null) return [];
  const r = raw as Record<string, unknown>;
  const text = [r.formatted_output, r.aggregated_output, r.output, r.stdout].find((v): v is string => typeof v === 'string');
  const err = typeof r.stderr === 'string' && r.stderr !== '' && text !== r.stderr ? r.stderr : undefined;
  const code = r.exit_code ?? r.exitCode;
  return [...(text !== undefined && text !== '' ? [text.replace(/\n$/, '')] : []), ...(err !== undefined ? [err.replace(/\n$/, '')] : []), ...(typeof code === 'number' ? [`exit ${code}`] : [])];
}

function argsOf(request: AgentApprovalRequest): Record<string, unknown> {
  const op = request.operation;
  if (op.tool === 'execute') return { command: op.command ?? op.title };
  return { ...(op.paths[0] !== undefined ? { file_path: op.paths[0] } : op.outside[0] !== undefined ? { file_path: op.outside[0] } : {}), title: op.title };
}

/** The agent's last answer of the turn (none after the person's message). */
export function lastAnswer(state: ThreadState): string {
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const m = state.messages[i]!;
    if (m.role === 'user') return '';
    if (m.role === 'assistant' && m.content !== '' && m.toolCalls === undefined) return m.content;
  }
  return '';
}
