// `deepdesk threads ls | export THREAD [--format jsonl|md] [--output FILE] [--no-media]`
// (SPEC §17): a thread as it is in SQLite — messages, tool calls and results, notes,
// subagents' transcripts, approvals and the usage ledger's calls — as JSON lines for evals
// or as a Markdown transcript to read and share.

import { goalJson } from '../core/goals/goal';
import { writeFileSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { databasePath, resolveDataDir } from '../app/base/data-dir';
import type { PendingApproval } from '../app/contract';
import { readSavedSettings } from '../app/settings/settings-service';
import { ThreadStore, type ThreadSummary } from '../app/threads/thread-store';
import { ambiguous, matchThread } from '../app/threads/thread-ref';
import { costText, ledgerPrices } from '../app/usage/usage-report';
import type { ThreadState } from '../core/agent/types';
import { openDatabase } from '../core/backends/store/store';
import type { ChatMessage, ContentPart, MediaPart, ToolCall } from '../core/models/types';
import { base64Bytes } from '../core/media/kinds';
import { costDrifts } from '../core/telemetry/cost-drift';
import { ledgerReader, type LedgerReader, type ModelCallRecord, type UsageGroup, type UsageSums } from '../core/telemetry/usage-ledger';
import { fence, inlineCode, oneLine } from '../core/text/markdown-code';
import { terminalSafe, terminalSafeJson } from '../core/text/terminal-safe';
import { COMMAND_OPTIONS, SUBCOMMANDS } from './command-table';
import { table } from './table';
import { parseCommand, UsageError } from './usage';
import { writeContent } from './terminal-output';
import { processIo, type CommandIo } from './command-io';

const ACTIONS: readonly string[] = SUBCOMMANDS.threads;
const FORMATS = ['jsonl', 'md'] as const;
type Format = (typeof FORMATS)[number];

/** A tool result in the Markdown transcript: at most this many characters of it. */
export const MD_RESULT_CHARS = 2_000;

export async function threadsCommand(argv: string[], io: Pick<CommandIo, 'stdout' | 'stderr'> = processIo()): Promise<number> {
  const { values, positionals } = parseCommand(argv, COMMAND_OPTIONS.threads);
  const [action, ...args] = positionals;
  if (action === undefined || !ACTIONS.includes(action)) throw new UsageError('expected one of: threads ls | export THREAD [--format jsonl|md] [--output FILE] [--no-media]');
  if (action === 'ls') {
    if (args.length > 0) throw new UsageError(`unexpected arguments: ${args.join(' ')}`);
    for (const flag of ['format', 'output', 'no-media'] as const) if (values[flag] !== undefined) throw new UsageError(`--${flag} only applies to threads export`);
  } else if (args.length !== 1) {
    throw new UsageError('threads export needs exactly one thread id');
  }
  const format = values.format ?? 'jsonl';
  if (!(FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format must be jsonl or md (got '${format}')`);
  if (values.output === '') throw new UsageError('--output needs a file');

  const dataDir = resolveDataDir(values['data-dir']);
  const db = openDatabase(databasePath(dataDir));
  try {
    const threads = new ThreadStore(db);
    if (action === 'ls') {
      io.stdout.write(listText(threads.list()));
      return 0;
    }
    // Its id, or a beginning of it that names it alone (thread-ref.ts).
    const ref = args[0]!;
    const match = matchThread(threads, ref);
    if (match.kind === 'many') throw new UsageError(ambiguous(ref, match.ids).message);
    const summary = match.kind === 'one' ? threads.get(match.id) : undefined;
    if (summary === undefined) {
      io.stderr.write(`deepdesk threads: no thread '${terminalSafe(ref, { singleLine: true })}' (deepdesk threads ls lists them)\n`);
      return 1;
    }
    const saved = readSavedSettings(dataDir);
    const data = exportData(ledgerReader(db, ...ledgerPrices(() => saved)), db, threads, summary);
    const text = (format as Format) === 'md' ? exportMarkdown(data) : exportJsonl(data, { media: !values['no-media'] });
    if (values.output !== undefined) writeFileSync(values.output, text, { mode: 0o600 });
    else writeContent(io.stdout, text);
    return 0;
  } finally {
    db.close();
  }
}

/** One line a thread, newest first: `<id>  <updated>  <n> messages  <title>`. */
function listText(list: ThreadSummary[]): string {
  if (list.length === 0) return 'No threads yet.\n';
  return table(list.map((t) => [t.id, t.updatedAt, `${t.messageCount} ${t.messageCount === 1 ? 'message' : 'messages'}`, t.title]));
}

/** Everything an export holds of one thread. */
export interface ThreadExport {
  summary: ThreadSummary;
  /** The provider sandbox the thread's folder runs in, when it has one (SPEC §18). */
  sandbox?: { provider: string; sandboxId: string | null };
  state: ThreadState;
  /** Notes kept for the thread's next model request, not yet in its history. */
  pendingNotes: ChatMessage[];
  approvals: StoredApproval[];
  calls: ModelCallRecord[];
  /** SPEC §26: the turns whose cost drifted, each with its ratio to the thread's median (on their model_call lines as costDrift). */
  costDrifts: ReadonlyMap<number, number>;
  byModel: UsageGroup[];
  total: UsageSums;
}

/** An approval row: asked and waiting, or decided with the run that asked not yet resumed. */
export interface StoredApproval {
  pending: PendingApproval;
  decision: unknown;
}

function exportData(ledger: LedgerReader, db: Database.Database, threads: ThreadStore, summary: ThreadSummary): ThreadExport {
  const state = threads.load(summary.id);
  const pendingNotes: ChatMessage[] = threads.pendingNotes(summary.id).map((n) => ({
    role: 'user',
    content: n.text,
    note: { id: n.id, kind: n.kind, display: n.display, ...(n.checkpointId !== undefined ? { checkpointId: n.checkpointId } : {}) },
  }));
  const { rows: byModel, total } = ledger.report({ by: 'model', threadId: summary.id });
  const sandbox = storedSandbox(db, summary.folder);
  return { summary, ...(sandbox !== undefined ? { sandbox } : {}), state, pendingNotes, approvals: storedApprovals(db, summary.id), calls: ledger.calls(summary.id), costDrifts: driftsOf(ledger, summary.id), byModel, total };
}

/** The thread's drifted turns (SPEC §26) and their ratios. */
function driftsOf(ledger: LedgerReader, threadId: string): Map<number, number> {
  return new Map(costDrifts(ledger.turns(threadId)).map((d) => [d.turn, d.ratio]));
}

/** The sandbox record of the thread's folder (sandbox-store.ts), read as it is: exporting changes nothing. */
function storedSandbox(db: Database.Database, folder: string): ThreadExport['sandbox'] {
  const table = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'sandboxes'").get();
  if (table === undefined || folder === '') return undefined;
  const row = db.prepare<[string], { provider: string; sandbox_id: string | null }>('SELECT provider, sandbox_id FROM sandboxes WHERE folder = ?').get(folder);
  return row === undefined ? undefined : { provider: row.provider, sandboxId: row.sandbox_id };
}

/** The thread's rows of the approvals table (approval-service.ts), read as they are: exporting changes nothing. */
function storedApprovals(db: Database.Database, threadId: string): StoredApproval[] {
  const table = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'approvals'").get();
  if (table === undefined) return [];
  const rows = db.prepare<[string], { pending_json: string; decision_json: string | null }>('SELECT pending_json, decision_json FROM approvals WHERE thread_id = ? ORDER BY created_at, rowid').all(threadId);
  return rows.flatMap((row) => {
    try {
      return [{ pending: JSON.parse(row.pending_json) as PendingApproval, decision: row.decision_json === null ? null : (JSON.parse(row.decision_json) as unknown) }];
    } catch {
      return [];
    }
  });
}

// ---- JSON lines ------------------------------------------------------------------------

/**
 * One JSON object a line, each with a `type`: `thread`; then in order `message` (with
 * `note` for a note Deepdesk gave the model), each assistant message's `tool_call`s right
 * after it (a subagent's lines, with `parentToolCallId`, right after its `task` call),
 * `tool_result`, `summary` where the model's history was summarized; then `approval`s,
 * `model_call`s (those of a turn whose cost drifted with `costDrift`, its ratio) and a final `usage`.
 */
export function exportJsonl(data: ThreadExport, options: { media: boolean }): string {
  const { summary, state } = data;
  const lines: unknown[] = [
    {
      type: 'thread',
      id: summary.id,
      title: summary.title,
      folder: summary.folder,
      createdAt: summary.createdAt,
      updatedAt: summary.updatedAt,
      ...(state.externalAgent !== undefined ? { agent: state.externalAgent.label } : {}),
      // The thread's goal (SPEC §21): `state`, its criteria, the evidence pack and `contradictedClaims`.
      ...(state.goal !== undefined ? { goal: goalJson(state.goal) } : {}),
      // Where it came from when not the window (a protocol client, a terminal's run), and the sandbox it runs in.
      ...(summary.source !== undefined ? { source: summary.source } : {}),
      ...(data.sandbox !== undefined ? { sandbox: data.sandbox } : {}),
    },
  ];
  const content = (c: string | ContentPart[]) => (typeof c === 'string' || options.media ? c : c.map((p) => (p.type === 'text' ? p : withoutData(p))));
  const push = (messages: readonly ChatMessage[], parent?: string) => {
    const nested = parent !== undefined ? { parentToolCallId: parent } : {};
    messages.forEach((m, index) => {
      if (parent === undefined && index === state.contextStart && index > 0 && state.summary !== undefined) {
        lines.push({ type: 'summary', index, summarizedMessages: index, text: state.summary });
      }
      if (m.role === 'user') {
        lines.push({ type: 'message', index, ...nested, role: 'user', content: content(m.content), ...(m.note !== undefined ? { note: m.note } : {}) });
      } else if (m.role === 'assistant') {
        const reasoning = m.reasoning?.map((r) => r.text).filter((t) => t !== '');
        lines.push({ type: 'message', index, ...nested, role: 'assistant', content: m.content, ...(m.provider !== undefined ? { provider: m.provider } : {}), ...(reasoning?.length ? { reasoning } : {}) });
        for (const call of m.toolCalls ?? []) {
          lines.push({ type: 'tool_call', ...nested, ...toolCallFields(call) });
          const run = parent === undefined ? state.subagentRuns?.[call.id] : undefined;
          if (run !== undefined) push(run, call.id);
        }
      } else {
        // `decided`: who let it run or refused it (SPEC §23), with the reviewer's verdict.
        lines.push({ type: 'tool_result', index, ...nested, toolCallId: m.toolCallId, name: m.toolName, content: content(m.content), isError: m.isError === true, ...(m.change !== undefined ? { change: m.change } : {}), ...(m.decided !== undefined ? { decided: m.decided } : {}) });
      }
    });
  };
  push(state.messages);
  if (state.summary !== undefined && state.contextStart >= state.messages.length && state.contextStart > 0) {
    lines.push({ type: 'summary', index: state.contextStart, summarizedMessages: state.contextStart, text: state.summary });
  }
  for (const m of data.pendingNotes) if (m.role === 'user') lines.push({ type: 'message', role: 'user', content: m.content, note: m.note, pending: true });
  for (const a of data.approvals) lines.push(approvalLine(a));
  // SPEC §25: what memories each model call carried, on the call and as a record of its own.
  for (const { threadId: _thread, memories = [], ...call } of data.calls) {
    const drift = data.costDrifts.get(call.turn);
    lines.push({ type: 'model_call', ...call, memories_used: memories, ...(drift !== undefined ? { costDrift: drift } : {}) });
    lines.push({ type: 'memories_used', callId: call.id, turn: call.turn, memories });
  }
  lines.push({ type: 'usage', total: data.total });
  return lines.map((l) => terminalSafeJson(l) + '\n').join('');
}

function toolCallFields(call: ToolCall): Record<string, unknown> {
  return {
    id: call.id,
    name: call.name,
    args: call.args,
    ...(call.parseError !== undefined ? { argsText: call.argsText, parseError: call.parseError } : {}),
    ...(call.originalArgs !== undefined ? { edited: true, editedBy: call.editedBy ?? 'person', originalArgs: call.originalArgs } : {}),
  };
}

function approvalLine({ pending, decision }: StoredApproval): Record<string, unknown> {
  // The diff preview holds whole files (the args say the same change); the thread is the export's.
  const { threadId: _thread, preview: _preview, ...rest } = pending;
  return { type: 'approval', status: decision === null ? 'pending' : 'decided', ...rest, ...(decision !== null ? { decision } : {}) };
}

function withoutData(part: MediaPart): Omit<MediaPart, 'data'> & { omitted: true } {
  const { data, ...rest } = part;
  return { ...rest, bytes: part.bytes ?? base64Bytes(data), omitted: true };
}

// ---- Markdown --------------------------------------------------------------------------

/**
 * A transcript to read: `# <title>`, `## User` / `## Assistant` sections, each tool call
 * as fenced arguments with its result (cut at MD_RESULT_CHARS, saying so), a subagent's
 * transcript under its `task` call, notes as quotes, media as `[image: name, mime, N
 * bytes]`, and a usage table. The thread's text is data: every fence is longer than any
 * run of backticks inside it, a message's unclosed fence is closed and a line of it that
 * would open raw HTML is escaped, and control and invisible characters are shown as
 * escapes (`\x1b`), as on a terminal.
 */
export function exportMarkdown(data: ThreadExport): string {
  const { summary, state } = data;
  const out: string[] = [];
  out.push(`# ${inertMarkdown(oneLine(summary.title)) || `Thread ${summary.id}`}`);
  out.push(
    [
      `- Thread: ${inlineCode(summary.id)}`,
      ...(summary.folder !== '' ? [`- Folder: ${inlineCode(summary.folder)}`] : []),
      ...(state.externalAgent !== undefined ? [`- Agent: ${inertMarkdown(oneLine(state.externalAgent.label))}`] : []),
      ...(summary.source !== undefined ? [`- From: ${summary.source.kind === 'protocol' ? `the Agent Protocol${summary.source.client !== undefined ? `, ${inlineCode(summary.source.client)}` : ''}` : summary.source.kind === 'run' ? 'deepdesk run' : 'an editor (ACP)'}`] : []),
      ...(data.sandbox !== undefined ? [`- Sandbox: ${inlineCode(data.sandbox.provider)}${data.sandbox.sandboxId !== null ? ` ${inlineCode(data.sandbox.sandboxId)}` : ''}`] : []),
      `- Created: ${summary.createdAt}, updated: ${summary.updatedAt}`,
    ].join('\n'),
  );
  if (state.goal !== undefined) {
    const goal = goalJson(state.goal);
    out.push(`## Goal: ${inertMarkdown(goal.state)}`, quote(guardMarkdown(goal.objective)), fence(pretty(goal), 'json'));
  }
  renderMessages(out, state.messages, state, 2);
  if (state.summary !== undefined && state.contextStart >= state.messages.length && state.contextStart > 0) out.push(summaryBlock(state.contextStart, state.summary));
  for (const m of data.pendingNotes) if (m.role === 'user' && m.note) out.push(quote(`**Note (${inertMarkdown(m.note.kind)}, not yet given to the model):** ${guardMarkdown(m.note.display)}`));
  if (data.approvals.length > 0) {
    out.push('## Approvals');
    for (const { pending, decision } of data.approvals) {
      const status = decision === null ? 'waiting for the person' : `decided (${decisionType(decision)}), not yet run`;
      out.push(`${inlineCode(pending.toolName)} (${inlineCode(pending.toolCallId)}), ${status}: ${inertMarkdown(oneLine(pending.reason))}`, fence(pretty(pending.args), 'json'));
    }
  }
  out.push(usageMarkdown(data));
  return terminalSafe(out.join('\n\n') + '\n');
}

function renderMessages(out: string[], messages: readonly ChatMessage[], state: ThreadState, level: 2 | 4, parent?: string): void {
  const h = '#'.repeat(level);
  const who = (name: string) => (parent === undefined ? `${h} ${name}` : `${h} Subagent › ${name}`);
  // Each result is shown with its call; the ones without a call where they stand.
  const results = new Map<string, Extract<ChatMessage, { role: 'tool' }>>();
  for (const m of messages) if (m.role === 'tool' && !results.has(m.toolCallId)) results.set(m.toolCallId, m);
  const shown = new Set<ChatMessage>();
  messages.forEach((m, index) => {
    if (parent === undefined && index === state.contextStart && index > 0 && state.summary !== undefined) out.push(summaryBlock(index, state.summary));
    if (m.role === 'user') {
      if (m.note !== undefined) out.push(quote(`**Note (${inertMarkdown(m.note.kind)}):** ${guardMarkdown(m.note.display)}`));
      else out.push(who(parent === undefined ? 'User' : 'Task'), contentMarkdown(m.content));
    } else if (m.role === 'assistant') {
      out.push(who('Assistant'));
      if (m.content.trim() !== '') out.push(guardMarkdown(m.content));
      for (const call of m.toolCalls ?? []) {
        out.push(...toolCallMarkdown(call));
        const run = parent === undefined ? state.subagentRuns?.[call.id] : undefined;
        if (run !== undefined && run.length > 0) {
          out.push(`${'#'.repeat(level + 1)} Subagent of ${inlineCode(call.id)}`);
          renderMessages(out, run, state, 4, call.id);
        }
        const result = results.get(call.id);
        if (result !== undefined && !shown.has(result)) {
          shown.add(result);
          out.push(...toolResultMarkdown(result));
        }
      }
    } else if (!shown.has(m)) {
      shown.add(m);
      out.push(...toolResultMarkdown(m));
    }
  });
}

function toolCallMarkdown(call: ToolCall): string[] {
  const blocks = [`**Tool call** ${inlineCode(call.name)} (${inlineCode(call.id)})`, fence(call.parseError !== undefined ? call.argsText : pretty(call.args), call.parseError !== undefined ? 'text' : 'json')];
  if (call.parseError !== undefined) blocks.push(`*The arguments are not valid JSON: ${inertMarkdown(oneLine(call.parseError))}*`);
  if (call.originalArgs !== undefined) blocks.push(`*Edited ${call.editedBy === 'hook' ? 'by a hook' : 'by the person'} before it ran; the model proposed:*`, fence(pretty(call.originalArgs), 'json'));
  return blocks;
}

function toolResultMarkdown(m: Extract<ChatMessage, { role: 'tool' }>): string[] {
  const parts = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
  const text = parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
  const cut = cutText(text, MD_RESULT_CHARS);
  const blocks = [`**Result** of ${inlineCode(m.toolName)} (${inlineCode(m.toolCallId)})${m.isError ? ', an error' : ''}:`];
  if (text !== '' || parts.every((p) => p.type === 'text')) blocks.push(fence(cut, 'text'));
  if (cut.length < text.length) blocks.push(`*Cut: the first ${cut.length.toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')} characters (the jsonl export has it whole).*`);
  const media = parts.flatMap((p) => (p.type === 'text' ? [] : [mediaLine(p)]));
  if (media.length > 0) blocks.push(media.join('\n'));
  return blocks;
}

function contentMarkdown(content: string | ContentPart[]): string {
  if (typeof content === 'string') return content.trim() === '' ? '*(empty)*' : guardMarkdown(content);
  const blocks = content.map((p) => (p.type === 'text' ? guardMarkdown(p.text) : mediaLine(p))).filter((b) => b.trim() !== '');
  return blocks.length > 0 ? blocks.join('\n\n') : '*(empty)*';
}

function summaryBlock(messages: number, summary: string): string {
  return quote(`**History summarized for the model** (the ${messages} messages above):\n\n${guardMarkdown(summary)}`);
}

/** `[image: name, mime, N bytes]`. */
function mediaLine(part: MediaPart): string {
  const name = inertMarkdown((part.name !== undefined ? oneLine(part.name) : 'unnamed').replace(/[[\]\\]/g, (c) => `\\${c}`));
  return `[${part.type}: ${name}, ${oneLine(part.mimeType).replace(/[[\]\\]/g, (c) => `\\${c}`)}, ${part.bytes ?? base64Bytes(part.data)} bytes]`;
}

function usageMarkdown(data: ThreadExport): string {
  if (data.total.calls === 0) return '## Usage\n\nNo model calls recorded for this thread.';
  const row = (label: string, s: UsageSums) => `| ${label} | ${s.calls} | ${s.inputTokens} | ${s.outputTokens} | ${s.cacheReadTokens} | ${s.cacheWriteTokens} | ${costText(s)} |`;
  const lines = [
    '## Usage',
    '',
    '| Model | Calls | Input | Output | Cache read | Cache write | Cost |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...data.byModel.map((g) => row(inertMarkdown(oneLine(g.key).replace(/[|\\]/g, (c) => `\\${c}`)), g)),
    row('**Total**', data.total),
    '',
    `Calls by what they were for: ${Object.entries(data.total.byPurpose).map(([purpose, s]) => `${inertMarkdown(oneLine(purpose))} ${s.calls} (${costText({ costUsd: s.costUsd, unpricedCalls: 0 })})`).join(', ')}`,
  ];
  const unpriced = data.total.unpricedCalls;
  if (unpriced > 0) lines.push('', `${unpriced} ${unpriced === 1 ? 'call' : 'calls'} of models with no known price: tokens counted, cost not (set a price in Settings › Prices)`);
  return lines.join('\n');
}

/**
 * A message's own Markdown, kept, but unable to swallow what follows it or to run when the
 * transcript is rendered: a fence it leaves open is closed, and outside its fences nothing
 * stays active (inertMarkdown).
 */
export function guardMarkdown(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let prose: string[] = [];
  const flush = () => {
    if (prose.length > 0) out.push(inertMarkdown(prose.join('\n')));
    prose = [];
  };
  let open: { char: string; length: number } | undefined;
  for (const line of lines) {
    const marker = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (open === undefined) {
      if (marker !== null && !(marker[1]![0] === '`' && marker[2]!.includes('`'))) {
        flush();
        open = { char: marker[1]![0]!, length: marker[1]!.length };
        out.push(line);
      } else prose.push(line);
    } else {
      out.push(line);
      if (marker !== null && marker[1]![0] === open.char && marker[1]!.length >= open.length && marker[2]!.trim() === '') open = undefined;
    }
  }
  flush();
  if (open !== undefined) out.push(open.char.repeat(open.length));
  return out.join('\n');
}

/** Link targets a renderer would run or load as a document. */
const ACTIVE_SCHEME = /^(?:javascript|vbscript|data):/;

/**
 * Markdown outside fences with nothing a renderer acts on: every `<` is `&lt;` (no HTML
 * block, inline tag, comment or autolink can open, whatever code span or backslash a renderer
 * sees around it; inside a code span it shows as written), a character reference's `&` is
 * `&amp;` (no entity spells a scheme), and a link or image target with a script or data
 * scheme starts with `unsafe:` (a scheme nothing runs).
 */
export function inertMarkdown(text: string): string {
  return text
    .replace(/&(?=#?[a-z0-9]+;)/gi, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/(\]\s*\(\s*|\]:\s*)([^\s()]+)/g, (whole, lead: string, target: string) => {
      // eslint-disable-next-line no-control-regex -- a browser drops controls and spaces from a URL before reading its scheme
      const plain = target.replace(/\\([!-/:-@[-`{-~])/g, '$1').replace(/[\x00-\x20]/g, '').toLowerCase();
      return ACTIVE_SCHEME.test(plain) ? `${lead}unsafe:${target}` : whole;
    });
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => (l === '' ? '>' : `> ${l}`))
    .join('\n');
}

function pretty(value: unknown): string {
  return JSON.stringify(value ?? null, null, 2) ?? 'null';
}

/** The first `max` characters, never half a surrogate pair. */
function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

function decisionType(decision: unknown): string {
  return typeof decision === 'object' && decision !== null && typeof (decision as { type?: unknown }).type === 'string' ? oneLine((decision as { type: string }).type) : 'unknown';
}
