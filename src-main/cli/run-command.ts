// `deepdesk run [options] "prompt"` (SPEC §5): the agent headless, to completion.

import { withClaudeRules } from '../core/agent/permissions/claude-permissions';
import { isDefaultRule } from '../core/agent/permissions/modes';
import { DEFAULT_RULES } from '../core/agent/permissions/rules';
import { transcriptsDir, transcriptWriter } from '../core/extensions/hooks/transcript';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline/promises';
import { APPROVAL_MODES, DEFAULT_MODE, isApprovalMode } from '../core/agent/permissions/modes';
import { createAgentDefinition } from '../core/agent/create-agent';
import { runAgent } from '../core/agent/loop';
import type { ApprovalBroker } from '../core/agent/middleware/approval';
import { newThreadState, type AgentEvent, type ApprovalDecision, type ApprovalRequest, type ThreadState } from '../core/agent/types';
import { createDefaultMounts, threadFilesFrom, threadFilesSnapshot } from '../core/backends/mounts/mounts';
import { CheckpointHistory } from '../core/checkpoints/history';
import { recorderFor } from '../core/checkpoints/recorder';
import { CheckpointStore } from '../core/checkpoints/store';
import { openDatabase } from '../core/backends/store/store';
import { createChatModel } from '../core/models/create-model';
import { detectSandbox } from '../core/sandbox';
import { ReadGuard } from '../core/tools/read-guard';
import { describeLinkTarget } from '../core/agent/permissions/link-target-text';
import { terminalSafe, terminalSafeJson } from '../core/text/terminal-safe';
import { databasePath, resolveDataDir } from '../app/data-dir';
import { ThreadStore } from '../app/threads/thread-store';
import { folderLocation } from './folders';
import { openRunFolder } from './run-folder';
import { sshTargetLabel } from '../core/backends/remote/ssh-target';
import { cliChatModel, openFolderExtensions } from './folder-runtime';
import { expandInput, isInputError, messageText, type InputOutcome } from '../app/commands/person-input';
import type { ChatMessage } from '../core/models/types';
import { personRules, savedRunSettings } from './person-rules';
import { COMMAND_OPTIONS } from './command-table';
import { parseCommand, positiveAmount, positiveInt, UsageError } from './usage';
import { memoriesStoreFlag, mountFlags, openSessionMounts } from './mount-flags';
import { RunAudit } from '../app/telemetry/run-audit';
import { packageVersion } from './package-version';

const RUN_OPTIONS = COMMAND_OPTIONS.run;

type ApproveMode = 'ask' | 'auto' | 'deny';

export interface RunIo {
  stdin: NodeJS.ReadStream | NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

const defaultIo = (): RunIo => ({ stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env });

export async function runCommand(argv: string[], io: RunIo = defaultIo()): Promise<number> {
  const { values, positionals } = parseCommand(argv, RUN_OPTIONS);
  const prompt = positionals.join(' ').trim();
  if (prompt === '') throw new UsageError('run needs a prompt, e.g. deepdesk run "explain this project"');
  const approve = (values.approve ?? 'ask') as ApproveMode;
  if (!['ask', 'auto', 'deny'].includes(approve)) throw new UsageError(`--approve must be ask, auto or deny (got '${values.approve}')`);
  const mode = values.mode ?? DEFAULT_MODE;
  if (!isApprovalMode(mode)) throw new UsageError(`--mode must be ${APPROVAL_MODES.join(', ')} (got '${values.mode}')`);
  const contextWindow = positiveInt('--context-window', values['context-window']);
  const evictChars = positiveInt('--evict-chars', values['evict-chars']);
  const location = folderLocation(values.folder);
  const flaggedMounts = mountFlags(values.mount);
  const memoriesStore = memoriesStoreFlag(values['memories-store']);
  const dataDir = resolveDataDir(values['data-dir'], io.env);
  const maxCost = positiveAmount('--max-cost', values['max-cost']);
  const saved = savedRunSettings(dataDir, io.env);
  const overrides = { ...(saved.mediaInput !== undefined ? { mediaInputOverrides: saved.mediaInput } : {}), ...(saved.prices !== undefined ? { priceOverrides: saved.prices } : {}) };
  const model = cliChatModel(
    { model: values.model, baseUrl: values['base-url'], apiKey: values['api-key'], contextWindow, mediaInput: saved.mediaInput, prices: saved.prices },
    io.env,
  );

  const say = (line: string) => io.stderr.write(`deepdesk: ${terminalSafe(line, { singleLine: true })}\n`);
  const folder = await openRunFolder(location, { dataDir, env: io.env, say });
  const { sandbox } = folder;
  if (mode === 'auto' && sandbox === undefined) {
    await folder.close();
    const detected = location.kind === 'local' ? await detectSandbox() : { available: false as const, reason: `${sshTargetLabel(location.target)} has no usable bubblewrap` };
    throw new UsageError(`--mode auto needs a sandbox, and none is available: ${detected.available ? 'it could not be set up' : detected.reason}`);
  }
  // MCP servers, skills and hooks of the folder load through the one trust gate (SPEC §9–§11);
  // a remote folder's own configuration is not read in this version (openRunFolder says so).
  let extensions;
  try {
    extensions = await openFolderExtensions(folder.localPath, { dataDir, env: io.env, mcpFiles: values['mcp-config'] ?? [], trust: values.trust === true, say });
  } catch (err) {
    await folder.close();
    throw err;
  }
  const { mcp, skills, definitions, hooks, realFolder } = extensions;
  const db = openDatabase(databasePath(dataDir));
  const audit = await RunAudit.open({
    db,
    env: io.env,
    folder: folder.text,
    ...(folder.localPath !== undefined ? { localFolder: folder.localPath } : {}),
    sandboxType: sandbox?.kind ?? 'none',
    version: packageVersion(),
    settings: () => saved,
  });
  const sessionMounts = openSessionMounts({ dataDir, env: io.env, db, flags: flaggedMounts, memoriesStore, say });
  const checkpoints = CheckpointStore.open(dataDir);
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const threads = new ThreadStore(db);
    const rules = personRules(dataDir, io.env, (line) => io.stderr.write(`deepdesk: ${terminalSafe(line)}\n`));
    const threadId = values.thread ?? randomUUID();
    const state: ThreadState = threads.exists(threadId) ? threads.load(threadId) : newThreadState(threadId);
    const threadFiles = threadFilesFrom(state.files);
    const mounts = createDefaultMounts({
      folder: folder.text,
      folderBackend: folder.backend,
      db,
      threadFiles,
      memoryAuthor: threadId,
      skills: () => skills.current().skills,
      memories: sessionMounts.memories.store,
      extraMounts: () => sessionMounts.table.routes(),
    });
    const definition = createAgentDefinition({
      model,
      backend: mounts.backend,
      // Claude Code's settings files' rules around the person's own, the defaults last (SPEC §11).
      rules: () => [...withClaudeRules(extensions.claudeRules(), rules.filter((rule) => !isDefaultRule(rule))), ...DEFAULT_RULES],
      broker: cliBroker(approve, io),
      mode: () => mode,
      sandboxAvailable: () => sandbox !== undefined,
      resolveModel: (spec) => createChatModel({ model: spec, env: io.env, ...overrides }),
      checkpoints: recorderFor(checkpoints, folder.checkpointFolder),
      gitMounts: () => sessionMounts.table.gitMounts(),
      ...(mcp ? { mcp } : {}),
      skills: { source: () => skills.current().skills },
      subagents: definitions.agents().agents,
      ...(hooks && realFolder !== undefined ? { hooks: { hooks: () => hooks().hooks, folder: realFolder, mode: () => mode, env: io.env, transcripts: transcriptWriter(transcriptsDir(dataDir)) } } : {}),
      ...(contextWindow !== undefined ? { contextWindow } : {}),
      ...(evictChars !== undefined ? { evictChars } : {}),
    });
    const persist = async (s: ThreadState) => {
      s.files = threadFilesSnapshot(threadFiles);
      threads.save(s, { folder: folder.text });
    };
    // `retry` and `tool_output` feed the window's countdown and live tail; they are not
    // among the --json event types (SPEC §5).
    const progress = progressPrinter(io);
    const emit = values.json
      ? (e: AgentEvent) => void (!WINDOW_ONLY_EVENTS.has(e.type) && io.stdout.write(terminalSafeJson(e) + '\n'))
      : (e: AgentEvent) => {
          // What a hook did is the person's to know, terminal or not (a failed script, a refused message).
          if (e.type === 'hook') io.stderr.write(`deepdesk: ${terminalSafe(e.message, { singleLine: true })} (${terminalSafe(e.hook.command, { singleLine: true })})\n`);
          progress(e);
        };
    let outcome: InputOutcome;
    try {
      outcome = await expandInput(prompt, { ...(mcp ? { mcp } : {}), skills: () => skills.current().skills, commands: () => definitions.commands().commands, files: mounts.folder }, controller.signal);
    } catch (err) {
      if (isInputError(err)) throw new UsageError(err.message);
      throw err;
    }
    if (outcome.kind === 'model' || outcome.kind === 'mode') {
      const value = outcome.kind === 'model' ? outcome.model : outcome.mode;
      throw new UsageError(`/${outcome.kind} changes the window's ${outcome.kind}; for deepdesk run pass --${outcome.kind} ${value}`);
    }
    if (outcome.kind === 'clear') throw new UsageError('/clear starts a new thread in the window; deepdesk run starts one whenever --thread is not given');
    const input: ChatMessage | null = outcome.kind === 'send' ? { role: 'user', content: messageText(outcome) } : null;
    const result = await runAgent(definition, state, input, {
      signal: controller.signal,
      emit,
      persist,
      guard: new ReadGuard(state.guard),
      ...(outcome.kind === 'compact' ? { compactOnly: true } : {}),
      // A `deepdesk checkpoints restore` (or the window) may have left news for this thread.
      pendingNotes: () => threads.pendingNotes(threadId),
      ...audit.runOptions(state, maxCost),
    });
    if (result.reason === 'completed') {
      if (!values.json) {
        const answer = (io.stdout as { isTTY?: boolean }).isTTY ? terminalSafe(result.text) : result.text;
        io.stdout.write(answer.endsWith('\n') ? answer : answer + '\n');
      }
      return 0;
    }
    const why =
      result.reason === 'error' || result.reason === 'budget'
        ? (result.error?.message ?? 'the agent failed')
        : result.reason === 'aborted'
          ? 'interrupted'
          : 'stopped after too many steps';
    io.stderr.write(`deepdesk run: ${terminalSafe(firstLine(why))}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    try {
      new CheckpointHistory(checkpoints).collectGarbage();
    } finally {
      checkpoints.close();
      await sessionMounts.close();
      await audit.close();
      db.close();
      await extensions.close();
      await folder.close();
      // Everything of the run is closed and flushed (bounded): a trace exporter's retry timer
      // against a collector that is down must not hold the command up after it is done.
      setTimeout(() => process.exit(), 1_000).unref();
    }
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}

/** Approvals on the command line: ask on a terminal, or a fixed policy. */
function cliBroker(mode: ApproveMode, io: RunIo): ApprovalBroker {
  return {
    async decide(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
      if (mode === 'auto') return { type: 'approve' };
      if (mode === 'deny') return { type: 'reject', message: 'This run does not allow actions that need approval (--approve deny). Continue without it or explain what you would need.' };
      const stdin = io.stdin as NodeJS.ReadStream;
      if (!stdin.isTTY || !io.stderr.isTTY) {
        return { type: 'reject', message: 'Nobody is available to approve this (non-interactive run). Continue without it, or tell the person to rerun with --approve auto.' };
      }
      return askOnTerminal(request, stdin, io.stderr, signal);
    },
  };
}

async function askOnTerminal(request: ApprovalRequest, input: NodeJS.ReadStream, output: NodeJS.WritableStream, signal: AbortSignal): Promise<ApprovalDecision> {
  const rl = createInterface({ input, output });
  try {
    // Everything here but our own words comes from the model: shown, never obeyed by the terminal.
    const via = describeLinkTarget(request.toolName, request.args, request.resolvedTarget);
    const command = request.toolName === 'execute' && typeof request.args.command === 'string' ? request.args.command : null;
    output.write(
      `\n${terminalSafe(request.toolName, { singleLine: true })} needs approval: ${terminalSafe(request.reason)}\n` +
        (via !== null ? `${terminalSafe(via, { singleLine: true })}\n` : '') +
        (command !== null ? `Command: ${terminalSafe(command)}\n` : '') +
        `${terminalSafeJson(request.args, 2)}\n`,
    );
    const answer = (await rl.question('Approve? [y]es / [n]o / or type a reply for the agent: ', { signal })).trim();
    if (/^(y|yes)$/i.test(answer)) return { type: 'approve' };
    if (answer === '' || /^(n|no)$/i.test(answer)) return { type: 'reject' };
    return { type: 'reject', message: answer };
  } finally {
    rl.close();
  }
}

const WINDOW_ONLY_EVENTS = new Set<string>(['retry', 'tool_output', 'note', 'rewound']);

/** Without --json: a line of progress per tool call on a terminal's stderr, nothing otherwise. */
function progressPrinter(io: RunIo): (event: AgentEvent) => void {
  if (!io.stderr.isTTY) return () => undefined;
  return (event) => {
    if (event.type === 'tool_call') io.stderr.write(`• ${terminalSafe(event.name, { singleLine: true })} ${truncate(terminalSafeJson(event.args), 100)}\n`);
    else if (event.type === 'summarized') io.stderr.write(`• history summarized (${event.summarizedMessages} messages archived to ${terminalSafe(event.archivePath, { singleLine: true })})\n`);
  };
}

function truncate(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}
