// Hooks in the agent loop (SPEC §11): SessionStart and UserPromptSubmit on a new message,
// PreToolUse and PostToolUse around every tool call (subagents' and MCP tools' too: this
// middleware is shared with subagents), Stop when the agent would end its turn.
// PreToolUse sits outside approval: a deny never reaches the question, an `updatedInput` is
// what gets asked about and run, and an allow or ask is handed to approval to combine with
// the rules and the mode (call-permission.ts). PostToolUse runs only for a call that ran:
// a second, innermost middleware marks the calls that reached the tool.

import { randomUUID } from 'node:crypto';
import type { ChatMessage, ToolCall } from '../../models/types';
import { errorText, isErrorOutput, type ToolOutput } from '../../tools/tool';
import { PromptRefusedError, rootRun, type Middleware, type RunContext } from '../../agent/middleware';
import { matchesTool } from './matcher';
import { withHookPermission } from './call-permission';
import { runHooks, type HookInput, type HookOutcome } from './runner';
import type { HookEntry, HookEventName } from './types';

export interface HooksOptions {
  /** The hooks in force, read at every event (Settings can turn one off; a file can change). */
  hooks: () => readonly HookEntry[];
  /** The project folder (real path): the hooks' cwd, `cwd` on stdin and `CLAUDE_PROJECT_DIR`. */
  folder: string;
  /** The approval mode, for `permission_mode` (default `ask`). */
  mode?: () => string;
  /** The app's environment, scrubbed of its secrets for the hooks (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export const HOOK_BLOCK_PREFIX = 'blocked by hook: ';

/** The hooks middleware (outside approval) and its marker of calls that ran (innermost). */
export function hooksMiddleware(options: HooksOptions): { outer: Middleware; inner: Middleware } {
  const ran = new Set<string>();
  const matching = (event: HookEventName, tool?: string): HookEntry[] =>
    options.hooks().filter((hook) => hook.event === event && (tool === undefined || matchesTool(hook.matcher, tool)));

  const run = async (ctx: RunContext, hooks: readonly HookEntry[], input: Omit<HookInput, 'session_id' | 'cwd' | 'permission_mode'>, toolCallId?: string): Promise<HookOutcome> => {
    const outcome = await runHooks(
      hooks,
      { session_id: rootRun(ctx).threadId, cwd: options.folder, permission_mode: options.mode?.() ?? 'ask', ...input },
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
      if (ctx.depth > 0 || message.role !== 'user') return message;
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
      const pre = matching('PreToolUse', call.name);
      if (pre.length > 0) {
        const outcome = await run(ctx, pre, { hook_event_name: 'PreToolUse', tool_name: call.name, tool_input: call.args ?? {}, tool_use_id: call.id }, call.id);
        const permission = outcome.permission;
        if (permission?.decision === 'deny') {
          const reason = `${HOOK_BLOCK_PREFIX}${permission.reason}`;
          ctx.emit({ type: 'approval', id: call.id, name: call.name, args: call.args ?? {}, status: 'denied', reason, hook: permission.hook });
          return errorText(reason);
        }
        if (outcome.updatedInput) {
          const args = outcome.updatedInput.args;
          ctx.emit({ type: 'approval', id: call.id, name: call.name, args, status: 'edited', reason: 'edited by hook', hook: outcome.updatedInput.hook });
          toRun = { ...call, args, argsText: JSON.stringify(args), editedBy: 'hook' };
        }
        if (permission) toRun = withHookPermission(toRun, { decision: permission.decision as 'allow' | 'ask', reason: permission.reason, hook: permission.hook });
      }
      ran.delete(call.id);
      const output = await next(toRun);
      // Refused, rejected or answered instead (approval, a mode): it did not run.
      if (!ran.delete(call.id)) return output;
      const post = matching('PostToolUse', call.name);
      if (post.length === 0 || ctx.signal.aborted) return output;
      const outcome = await run(
        ctx,
        post,
        { hook_event_name: 'PostToolUse', tool_name: call.name, tool_input: toRun.args ?? {}, tool_use_id: call.id, tool_response: { output: output.text, isError: isErrorOutput(output) } },
        call.id,
      );
      const added: string[] = [];
      if (outcome.block) {
        added.push(`A PostToolUse hook flagged this result: ${outcome.block.reason}`);
        ctx.emit({ type: 'hook', event: 'PostToolUse', outcome: 'blocked', message: outcome.block.reason, hook: outcome.block.hook, toolCallId: call.id });
      }
      if (outcome.context.length > 0) added.push(`Context from a PostToolUse hook:\n${outcome.context.join('\n\n')}`);
      if (added.length === 0) return output;
      return { ...output, text: `${output.text}\n\n${added.join('\n\n')}`, isError: isErrorOutput(output) };
    },

    async onStop(ctx, stop): Promise<string | undefined> {
      if (ctx.depth > 0) return undefined;
      const hooks = matching('Stop');
      if (hooks.length === 0) return undefined;
      const outcome = await run(ctx, hooks, { hook_event_name: 'Stop', stop_hook_active: stop.continued > 0 });
      return outcome.block?.reason;
    },
  };
  return { outer, inner };
}

function promptText(message: Extract<ChatMessage, { role: 'user' }>): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}
