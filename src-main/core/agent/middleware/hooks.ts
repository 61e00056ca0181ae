// Hooks in the agent loop (SPEC §11): SessionStart and UserPromptSubmit on a new message,
// PreToolUse and PostToolUse around every tool call (subagents' and MCP tools' too: this
// middleware is shared with subagents), Stop when the agent would end its turn.
// PreToolUse sits outside approval: a deny never reaches the question, an `updatedInput` is
// what gets asked about and run, and an allow or ask is handed to approval to combine with
// the rules and the mode (call-permission.ts). PostToolUse runs only for a call that ran:
// a second, innermost middleware marks the calls that reached the tool.
// PreSkillShellCommand comes before PreToolUse on an `execute` call that runs a skill's or a
// command's `` !`…` `` line: the lines of the command or skill the person invoked this turn
// (`invoked_by: "user"`), and those of a skill whose SKILL.md the model read in this run
// (`"model"`: Deepdesk's model invokes a skill by reading it). Its deny refuses the call as a
// PreToolUse deny does (and is recorded the same way); its allow or ask combines with
// PreToolUse's, the strictest winning.

import { randomUUID } from 'node:crypto';
import { posix } from 'node:path';
import type { ChatMessage, ToolCall } from '../../models/types';
import { errorText, isErrorOutput, type ToolOutput } from '../../tools/tool';
import { tellApproval, tellRuled } from '../asking';
import { PromptRefusedError, type Middleware } from '../middleware';
import { rootRun, type RunContext } from '../run-context';
import { matchesClaudeRule, parseClaudeRule } from '../../config/claude-rule';
import type { EditorMount, EditorPaths } from '../../backends/mounts/real-paths';
import { claudeToolCall, claudeToolResponse, deepdeskToolArgs, type ClaudeToolCall } from '../../extensions/hooks/claude-tool-input';
import { matchesTool } from '../../extensions/hooks/matcher';
import type { TranscriptWriter } from '../../extensions/hooks/transcript';
import { withHookPermission } from '../../extensions/hooks/call-permission';
import { runHooks, type HookInput, type HookOutcome } from '../../extensions/hooks/runner';
import type { HookEntry, HookEventName, SkillShellLine } from '../../extensions/hooks/types';
import { shellLines } from '../../extensions/definitions/commands';
import type { Skill } from '../../extensions/skills/types';

export interface HooksOptions {
  /** The hooks in force, read at every event (Settings can turn one off; a file can change). */
  hooks: () => readonly HookEntry[];
  /** The project folder (real path): the hooks' cwd, `cwd` on stdin and `CLAUDE_PROJECT_DIR`. */
  folder: string;
  /** The approval mode, for `permission_mode` (default `ask`). */
  mode?: () => string;
  /** The app's environment, scrubbed of its secrets for the hooks (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Where the thread's JSONL transcript is kept for `transcript_path` (in the data folder). */
  transcripts?: TranscriptWriter;
  /** The person's mounts, for the real paths hooks are told (the folder and Deepdesk's own are known). */
  mounts?: () => readonly EditorMount[];
  /** The shell lines of the command or skill the person invoked for this turn (PreSkillShellCommand, `invoked_by: "user"`). */
  skillShellLines?: () => readonly SkillShellLine[];
  /** The skills there are: a read of one's SKILL.md is the model invoking it (its lines: `invoked_by: "model"`). */
  skills?: () => readonly Skill[];
}

import { HOOK_BLOCK_PREFIX, reasonWords } from '../permissions/reason';

export { HOOK_BLOCK_PREFIX };

/** The hooks middleware (outside approval) and its marker of calls that ran (innermost). */
export function hooksMiddleware(options: HooksOptions): { outer: Middleware; inner: Middleware } {
  const ran = new Set<string>();
  /** The shell lines of the skills the model read in this run (this middleware is made per run, and per subagent). */
  const modelLines: SkillShellLine[] = [];
  /** The skill or command line an `execute` call runs, if it runs one: the person's first, then the model's. */
  const shellLineOf = (call: ToolCall): SkillShellLine | undefined => {
    if (call.name !== 'execute') return undefined;
    const command = asArgs(call.args).command;
    if (typeof command !== 'string') return undefined;
    const line = command.trim();
    return [...(options.skillShellLines?.() ?? []), ...modelLines].find((l) => l.command === line);
  };
  /** After a read_file that ran: when it read a skill's SKILL.md, that skill's lines are the model's to run. */
  const noteSkillRead = async (call: ToolCall): Promise<void> => {
    const path = asArgs(call.args).file_path;
    if (call.name !== 'read_file' || typeof path !== 'string' || options.skills === undefined) return;
    const wanted = posix.normalize(path);
    const skill = options.skills().find((s) => s.virtualPath === wanted);
    if (skill === undefined) return;
    let body: string;
    try {
      body = await skill.body();
    } catch {
      return;
    }
    for (const command of shellLines(body)) {
      if (!modelLines.some((l) => l.command === command && l.skillName === skill.name)) modelLines.push({ command, skillName: skill.name, invokedBy: 'model' });
    }
  };
  const paths: EditorPaths = { folder: options.folder, mounts: () => options.mounts?.() ?? [] };
  /** The hooks of an event (of a call: by matcher and `if`); a handler with an `if` runs only on calls it matches. */
  const matching = (event: HookEventName, tool?: { name: string; claude: ClaudeToolCall }): HookEntry[] =>
    options.hooks().filter((hook) => {
      if (hook.event !== event) return false;
      if (tool === undefined) return hook.if === undefined;
      if (!matchesTool(hook.matcher, tool.name)) return false;
      if (hook.if === undefined) return true;
      const rule = parseClaudeRule(hook.if);
      return !('problem' in rule) && matchesClaudeRule(rule, tool.claude, options.folder);
    });

  const run = async (ctx: RunContext, hooks: readonly HookEntry[], input: Omit<HookInput, 'session_id' | 'cwd' | 'permission_mode'>, toolCallId?: string): Promise<HookOutcome> => {
    const root = rootRun(ctx);
    let transcript: string | undefined;
    try {
      transcript = options.transcripts?.write(root.threadId, root.state.messages, options.folder);
    } catch {
      // No transcript this time (a full disk): the hook still runs, without the path.
    }
    const outcome = await runHooks(
      hooks,
      { session_id: root.threadId, ...(transcript !== undefined ? { transcript_path: transcript } : {}), cwd: options.folder, permission_mode: options.mode?.() ?? 'ask', ...input },
      { folder: options.folder, signal: ctx.signal, ...(options.env ? { env: options.env } : {}) },
    );
    for (const error of outcome.errors) {
      ctx.emit({ type: 'hook', event: input.hook_event_name, outcome: 'error', message: `${input.hook_event_name} hook ${error.message}`, hook: error.hook, ...(toolCallId ? { toolCallId } : {}) });
    }
    return outcome;
  };

  /** Context from a hook goes to the model as a note before the message (the window shows it as a notice). */
  const contextNote = (ctx: RunContext, event: HookEventName, context: readonly string[]): void => {
    if (context.length === 0) return;
    const id = `hook-context-${randomUUID()}`;
    const text = `Context from the person's ${event} hook:\n${context.join('\n\n')}`;
    ctx.state.messages.push({ role: 'user', content: text, note: { id, kind: 'hook', display: text } });
    ctx.emit({ type: 'note', id, kind: 'hook', text });
  };

  const inner: Middleware = {
    name: 'hooks-ran',
    wrapToolCall(_ctx, info, next) {
      ran.add(info.call.id);
      return next(info.call);
    },
  };

  const outer: Middleware = {
    name: 'hooks',

    async onUserMessage(ctx, message): Promise<ChatMessage> {
      if (message.role !== 'user') return message;
      if (ctx.depth > 0) {
        const hooks = matching('SubagentStart');
        if (hooks.length > 0) await run(ctx, hooks, { hook_event_name: 'SubagentStart', ...(ctx.parentToolCallId !== undefined ? { agent_id: ctx.parentToolCallId } : {}) });
        return message;
      }
      // A thread's first run: nothing the person wrote is in it yet.
      if (!ctx.state.messages.some((m) => m.role === 'user' && m.note === undefined)) {
        const hooks = matching('SessionStart');
        if (hooks.length > 0) contextNote(ctx, 'SessionStart', (await run(ctx, hooks, { hook_event_name: 'SessionStart', source: 'startup' })).context);
      }
      const hooks = matching('UserPromptSubmit');
      if (hooks.length === 0) return message;
      const outcome = await run(ctx, hooks, { hook_event_name: 'UserPromptSubmit', prompt: promptText(message) });
      if (outcome.block) {
        const said = `Your message was not sent: a UserPromptSubmit hook blocked it: ${outcome.block.reason}`;
        ctx.emit({ type: 'hook', event: 'UserPromptSubmit', outcome: 'blocked', message: said, hook: outcome.block.hook });
        throw new PromptRefusedError(said);
      }
      contextNote(ctx, 'UserPromptSubmit', outcome.context);
      return message;
    },

    async wrapToolCall(ctx, info, next): Promise<ToolOutput> {
      const { call } = info;
      if (call.parseError !== undefined) return next(call);
      let toRun: ToolCall = call;
      const claude = claudeToolCall(call.name, asArgs(call.args), paths);
      // A skill's or command's shell line: its own event first (matched on the skill's or command's name).
      let skillPermission: HookOutcome['permission'];
      const line = shellLineOf(call);
      const skillHooks = line === undefined ? [] : matching('PreSkillShellCommand', { name: line.skillName ?? line.commandName ?? '', claude });
      if (line !== undefined && skillHooks.length > 0) {
        const outcome = await run(
          ctx,
          skillHooks,
          {
            hook_event_name: 'PreSkillShellCommand',
            ...(line.skillName !== undefined ? { skill_name: line.skillName } : { command_name: line.commandName ?? '' }),
            command: line.command,
            invoked_by: line.invokedBy,
            tool_use_id: call.id,
          },
          call.id,
        );
        skillPermission = outcome.permission;
        // Which event refused it, beside the refusal PreToolUse's would give (the card, the ledger's decided-by).
        if (skillPermission?.decision === 'deny') {
          ctx.emit({ type: 'hook', event: 'PreSkillShellCommand', outcome: 'blocked', message: `the ${line.skillName !== undefined ? `skill ${line.skillName}` : `command /${line.commandName ?? ''}`}'s shell line \`${line.command}\` (invoked by the ${line.invokedBy === 'user' ? 'person' : 'model'}) was blocked: ${skillPermission.reason}`, hook: skillPermission.hook, toolCallId: call.id });
        }
      }
      const pre = skillPermission?.decision === 'deny' ? [] : matching('PreToolUse', { name: call.name, claude });
      if (pre.length > 0 || skillPermission !== undefined) {
        const outcome = pre.length > 0 ? await run(ctx, pre, { hook_event_name: 'PreToolUse', ...claude, tool_use_id: call.id }, call.id) : { context: [], errors: [] };
        const permission = stricter(skillPermission, outcome.permission);
        if (permission?.decision === 'deny') {
          const why = { kind: 'hook', outcome: 'blocked', message: permission.reason } as const;
          const reason = reasonWords(why);
          tellRuled({ emit: (event) => ctx.emit(event), span: ctx.toolObserver?.(call.id) }, { id: call.id, name: call.name, args: (call.args ?? {}) as Record<string, unknown>, reason, why, hook: permission.hook }, 'denied', 'hook');
          return { ...errorText(reason), rejected: { by: 'hook' } };
        }
        if (outcome.updatedInput) {
          // The hook wrote Claude Code's fields and real paths: what runs is Deepdesk's arguments, checked as any call's.
          const args = deepdeskToolArgs(call.name, outcome.updatedInput.args, paths);
          tellApproval({ emit: (event) => ctx.emit(event) }, { id: call.id, name: call.name, args, reason: 'edited by hook', why: { kind: 'hook', outcome: 'edited', message: '' }, hook: outcome.updatedInput.hook }, 'edited');
          toRun = { ...call, args, argsText: JSON.stringify(args), editedBy: 'hook' };
        }
        if (permission) toRun = withHookPermission(toRun, { decision: permission.decision as 'allow' | 'ask', reason: permission.reason, hook: permission.hook });
      }
      ran.delete(call.id);
      const output = await next(toRun);
      // Refused, rejected or answered instead (approval, a mode): it did not run.
      if (!ran.delete(call.id)) return output;
      if (!isErrorOutput(output)) await noteSkillRead(toRun);
      const ran_ = claudeToolCall(toRun.name, asArgs(toRun.args), paths);
      const failed = isErrorOutput(output);
      const event: HookEventName = failed ? 'PostToolUseFailure' : 'PostToolUse';
      const post = matching(event, { name: call.name, claude: ran_ });
      if (post.length === 0 || ctx.signal.aborted) return output;
      const outcome = await run(
        ctx,
        post,
        failed
          ? { hook_event_name: event, ...ran_, tool_use_id: call.id, error: output.text }
          : { hook_event_name: event, ...ran_, tool_use_id: call.id, tool_response: claudeToolResponse(call.name, ran_.tool_input, { text: output.text, isError: false }) },
        call.id,
      );
      const added: string[] = [];
      if (outcome.block) {
        added.push(`A PostToolUse hook flagged this result: ${outcome.block.reason}`);
        ctx.emit({ type: 'hook', event, outcome: 'blocked', message: outcome.block.reason, hook: outcome.block.hook, toolCallId: call.id });
      }
      if (outcome.context.length > 0) added.push(`Context from a ${event} hook:\n${outcome.context.join('\n\n')}`);
      if (added.length === 0) return output;
      return { ...output, text: `${output.text}\n\n${added.join('\n\n')}`, isError: isErrorOutput(output) };
    },

    async onStop(ctx, stop): Promise<string | undefined> {
      // A subagent's end is SubagentStop, and a block there makes the subagent go on as Stop does the agent.
      const event: HookEventName = ctx.depth > 0 ? 'SubagentStop' : 'Stop';
      const hooks = matching(event);
      if (hooks.length === 0) return undefined;
      const outcome = await run(ctx, hooks, { hook_event_name: event, stop_hook_active: stop.continued > 0, ...(ctx.depth > 0 && ctx.parentToolCallId !== undefined ? { agent_id: ctx.parentToolCallId } : {}) });
      return outcome.block?.reason;
    },
  };
  return { outer, inner };
}

const STRICTNESS = { allow: 0, ask: 1, deny: 2 } as const;

/** The stricter of two hook decisions (deny > ask > allow); the first on a tie. */
function stricter(a: HookOutcome['permission'], b: HookOutcome['permission']): HookOutcome['permission'] {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return STRICTNESS[b.decision] > STRICTNESS[a.decision] ? b : a;
}

function asArgs(args: unknown): Record<string, unknown> {
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

function promptText(message: Extract<ChatMessage, { role: 'user' }>): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}
