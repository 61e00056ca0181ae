// Human approval (SPEC §4): every tool call is checked against the ordered permission
// rules; `ask` pauses the call until the person approves, edits, rejects or responds.
// The broker owns persistence, so a pending approval survives a restart.

import { decideCall, isDefaultRule, modeDecision, PLAN_MODE_REFUSAL, type ApprovalMode, type ModeContext, type ModeDecision } from '../permissions/modes';
import type { ApprovalWhy } from '../permissions/reason';
import { operationOf, targetPaths, type PermissionRule } from '../permissions/rules';
import type { Backend, LinkTarget } from '../../backends/protocol';
import { withTargetGuard, type TargetGuard } from '../../backends/target-guard';
import { errorText, isErrorOutput, text, type ToolOutput } from '../../tools/tool';
import { canonicalJson } from '../../text/canonical-json';
import type { Middleware } from '../middleware';
import { rootRun, taskPath } from '../run-context';
import type { ApprovalDecision, ApprovalRequest } from '../types';
import { hookPermission } from '../../extensions/hooks/call-permission';

export interface ApprovalBroker {
  /** Resolves with the person's decision; rejects if the signal aborts. */
  decide(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
}

export interface ApprovalOptions {
  /** Read on every call, so rule changes (e.g. "always allow") apply at once. */
  rules: () => readonly PermissionRule[];
  broker: ApprovalBroker;
  /** The folder's approval mode, read on every call (default `ask`). */
  mode?: () => ApprovalMode;
  /** Whether commands run in an OS sandbox (default: no). */
  sandboxAvailable?: () => boolean;
  /** Whether an MCP tool is annotated read-only by its server (plan mode runs only those). */
  readOnlyTool?: (name: string) => boolean;
}

export function approvalMiddleware(options: ApprovalOptions): Middleware {
  return {
    name: 'approval',
    async wrapToolCall(ctx, info, next): Promise<ToolOutput> {
      const { call } = info;
      if (call.parseError !== undefined) return next(call);
      const args = (call.args ?? {}) as Record<string, unknown>;
      const links = await linkTargets(ctx.backend, call.name, args);
      const context = (resolvedTargets: Record<string, string>): ModeContext => ({
        mode: options.mode?.() ?? 'ask',
        rules: options.rules(),
        sandboxAvailable: options.sandboxAvailable?.() ?? false,
        resolvedTargets,
        ...(options.readOnlyTool ? { readOnlyTool: options.readOnlyTool } : {}),
      });
      const ruled = decideCall({ tool: call.name, args }, context(links.inside));
      // Writes that would change what other programs run later (git's hooks and config) ask
      // whatever the mode and the rules; deny and plan mode still win.
      const forced = ruled.decision === 'allow' ? await alwaysAsk(ctx.backend, call.name, args, links) : null;
      let verdict: ModeDecision = forced !== null ? modeDecision('ask', forced) : ruled;
      // A PreToolUse hook's answer (SPEC §11): `ask` asks even what would run; `allow` spares
      // only the question the defaults would ask — the same call with the default rules
      // allowing must run, so deny and ask rules of the person's, protected paths, plan mode,
      // `sandbox: false` and what always asks still stand.
      const hooked = hookPermission(call);
      let allowedByHook = false;
      if (hooked?.decision === 'ask' && verdict.decision === 'allow') verdict = modeDecision('ask', { kind: 'hook', outcome: 'asks', message: hooked.reason });
      if (hooked?.decision === 'allow' && verdict.decision === 'ask' && forced === null) {
        const withoutDefaults = { ...context(links.inside), rules: [...options.rules().filter((rule) => !isDefaultRule(rule)), HOOK_ALLOW_RULE] };
        if (decideCall({ tool: call.name, args }, withoutDefaults).decision === 'allow') {
          verdict = modeDecision('allow', { kind: 'hook', outcome: 'allowed', message: hooked.reason });
          allowedByHook = true;
        }
      }
      // What the call was checked (or approved) against; any other link target at the moment
      // the backend touches the file is checked again (a link made after this check).
      const checked = new Set(Object.entries(links.inside).map(([named, resolved]) => `${named}\0${resolved}`));
      const guard: TargetGuard = {
        check(_operation, named, resolved) {
          if (checked.has(`${named}\0${resolved}`)) return null;
          const again = decideCall({ tool: call.name, args }, context({ [named]: resolved }));
          if (again.decision === 'allow') return null;
          return `'${named}' now leads to '${resolved}' through a symlink that was not there when this call was checked (${again.reason}); nothing was done. Call the tool again on '${resolved}' if you mean it`;
        },
      };
      const run = (toRun: typeof call) => withTargetGuard(guard, () => next(toRun));
      const observed = ctx.toolObserver?.(call.id);
      if (verdict.decision === 'allow') {
        // The mode decided when the rules alone would have asked; a hook when its allow spared the question.
        const by = allowedByHook ? 'hook' : ruled.decision === 'allow' && options.mode !== undefined && decideCall({ tool: call.name, args }, { ...context(links.inside), mode: 'ask' }).decision !== 'allow' ? 'mode' : 'rule';
        observed?.decided('allow', by);
        return run(call);
      }
      if (verdict.decision === 'refuse') {
        observed?.decided('refuse', 'mode');
        return { ...errorText(PLAN_MODE_REFUSAL), rejected: { by: 'mode' } };
      }
      const base = { id: call.id, name: call.name, args, reason: verdict.reason, why: verdict.why } as const;
      if (verdict.decision === 'deny') {
        observed?.decided('deny', 'rule');
        ctx.emit({ type: 'approval', ...base, status: 'denied' });
        return { ...errorText(`this ${call.name} call is not allowed: ${verdict.reason}. Do not retry it; find another way or ask the person.`), rejected: { by: 'rule' } };
      }
      ctx.emit({ type: 'approval', ...base, status: 'pending' });
      const path = taskPath(ctx);
      const request: ApprovalRequest = {
        // A subagent's question belongs to the thread the person sees.
        threadId: rootRun(ctx).threadId,
        toolCallId: call.id,
        toolName: call.name,
        args,
        reason: verdict.reason,
        why: verdict.why,
        ...(links.shown !== undefined ? { resolvedTarget: links.shown } : {}),
        ...(verdict.outsideSandbox ? { outsideSandbox: verdict.outsideSandbox } : {}),
        ...(ctx.parentToolCallId ? { parentToolCallId: ctx.parentToolCallId } : {}),
        ...(path.length > 0 ? { callPath: path } : {}),
      };
      const decision = await options.broker.decide(request, ctx.signal);
      observed?.decided(decision.type, 'person');
      const where = {
        ...('answeredIn' in decision && decision.answeredIn !== undefined ? { answeredIn: decision.answeredIn } : {}),
        ...('answeredBy' in decision && decision.answeredBy !== undefined ? { answeredBy: decision.answeredBy } : {}),
      };
      switch (decision.type) {
        case 'approve':
          ctx.emit({ type: 'approval', ...base, status: 'approved', ...where });
          return run(call);
        case 'edit': {
          if (canonicalJson(decision.args) === canonicalJson(args)) {
            ctx.emit({ type: 'approval', ...base, status: 'approved', ...where });
            return run(call);
          }
          ctx.emit({ type: 'approval', ...base, args: decision.args, status: 'edited', ...where });
          // The person wrote these arguments: where they lead now is what they approved.
          const edited = await linkTargets(ctx.backend, call.name, decision.args);
          for (const [named, resolved] of Object.entries(edited.inside)) checked.add(`${named}\0${resolved}`);
          // The history will show the edited call (the loop rewrites it); the result says so too.
          const output = await run({ ...call, args: decision.args, argsText: JSON.stringify(decision.args) });
          return { ...output, text: `${editNote(args, decision.args)}\n${output.text}`, isError: isErrorOutput(output) };
        }
        case 'reject': {
          ctx.emit({ type: 'approval', ...base, status: 'rejected', ...where });
          const message = decision.message?.trim() ?? '';
          const said = message !== '' ? ` They said: ${message}` : '';
          return { ...errorText(`the person rejected this ${call.name} call; it was not run.${said}`), rejected: { by: 'person', ...(message !== '' ? { message } : {}) } };
        }
        case 'respond':
          ctx.emit({ type: 'approval', ...base, status: 'responded' });
          return { ...text(`The person did not run this ${call.name} call and answered instead:\n${decision.message}`), rejected: { by: 'person', answered: true, message: decision.message } };
      }
    },
  };
}

/** Stands in for the default rules when a hook allows a call. */
const HOOK_ALLOW_RULE: PermissionRule = { id: 'hook-allow', tools: ['*'], decision: 'allow', description: 'a PreToolUse hook allowed this call' };

const NOTE_VALUE_CHARS = 300;

/** One line for the model: which arguments the person changed, from what to what. */
export function editNote(proposed: Record<string, unknown>, ran: Record<string, unknown>): string {
  const keys = [...new Set([...Object.keys(proposed), ...Object.keys(ran)])];
  const changes = keys
    .filter((k) => canonicalJson(proposed[k]) !== canonicalJson(ran[k]))
    .map((k) => (k in ran ? (k in proposed ? `${k} was ${shown(proposed[k])}, it ran with ${shown(ran[k])}` : `${k} added: ${shown(ran[k])}`) : `${k} removed (was ${shown(proposed[k])})`));
  return `Note: the person edited this call before it ran: ${changes.join('; ')}. The result below is of the edited call.`;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > NOTE_VALUE_CHARS ? `${text.slice(0, NOTE_VALUE_CHARS)}… (${text.length} characters)` : text;
}

interface CallLinks {
  /** Named virtual path → the virtual path it leads to inside the folder, when different. */
  inside: Record<string, string>;
  /** The first differing target, for the person: a virtual path, or a real path outside the folder. */
  shown?: string;
}

/** Why a change this call makes must ask anyway (the backend knows what runs its files later), or null. */
async function alwaysAsk(backend: Backend, tool: string, args: Record<string, unknown>, links: CallLinks): Promise<ApprovalWhy | null> {
  const operation = operationOf(tool);
  if (backend.alwaysAskReason === undefined || operation === null || !['write', 'edit', 'delete'].includes(operation)) return null;
  for (const path of targetPaths({ tool, args })) {
    for (const candidate of new Set([path, links.inside[path] ?? path])) {
      let reason: string | null;
      try {
        reason = await backend.alwaysAskReason(candidate);
      } catch {
        reason = 'it could not be checked';
      }
      if (reason !== null) return { kind: 'always-asks-path', path: candidate, because: reason };
    }
  }
  return null;
}

/** Where the call's paths lead through symlinks (only for tools that touch files). */
async function linkTargets(backend: Backend, tool: string, args: Record<string, unknown>): Promise<CallLinks> {
  const out: CallLinks = { inside: {} };
  if (backend.linkTarget === undefined || tool === 'execute') return out;
  for (const path of targetPaths({ tool, args })) {
    let target: LinkTarget | null;
    try {
      target = await backend.linkTarget(path);
    } catch {
      target = null;
    }
    if (target === null) continue;
    if ('virtual' in target) out.inside[path] = target.virtual;
    out.shown ??= 'virtual' in target ? target.virtual : `${target.outside} (outside the project folder)`;
  }
  return out;
}
