// Approval modes (SPEC §7): how much runs without asking, per folder. A mode never
// overrides the person's own rules or the guards: `deny` rules and protected paths beat
// every mode, and a rule of theirs that asks still asks. A mode only changes what the
// default rules would have done with a change (write/edit/delete) or a command.
//
//   mode   changes                       commands
//   ask    rules decide (default: ask)   rules decide (default: ask; allowed ones run sandboxed)
//   edit   run (protected paths ask)     rules decide
//   auto   run (protected paths ask)     run sandboxed (needs a sandbox)
//   plan   refused                       refused
//
// Whatever the mode, `execute` with `sandbox: false` asks (unless denied), and without a
// sandbox `auto` behaves as `ask` for commands: they run unsandboxed only when a rule allows.
import { analyzeCommand } from './shell-parse';
import { protectedPattern, protectedReason } from './protected-paths';
import { DEFAULT_RULES, evaluatePermission } from './rules';
import { argsOf, isMcpTool, operationOf } from './tool-targets';
import type { Operation, PermissionRequest, PermissionRule } from './types';
import { reasonWords, type ApprovalWhy } from './reason';

import type { ApprovalMode } from './mode-names';

// The modes' names alone live in mode-names.ts: a command that only checks a --mode flag loads no rules.
export { APPROVAL_MODES, DEFAULT_MODE, isApprovalMode, type ApprovalMode } from './mode-names';

/** The tool result of a change or command in plan mode, after `Error: `. */
export const PLAN_MODE_REFUSAL = 'plan mode is read-only; ask the user to switch modes to make changes';

type Kind = 'change' | 'command';
/** rules: the rules decide; run: what only the default rules would ask runs; refuse: never runs. */
type Effect = 'rules' | 'run' | 'refuse';

export const MODE_TABLE: Readonly<Record<ApprovalMode, Readonly<Record<Kind, Effect>>>> = {
  ask: { change: 'rules', command: 'rules' },
  edit: { change: 'run', command: 'rules' },
  auto: { change: 'run', command: 'run' },
  plan: { change: 'refuse', command: 'refuse' },
};

const KIND_OF: Partial<Record<Operation, Kind>> = { write: 'change', edit: 'change', delete: 'change', execute: 'command' };
const OPERATIONS_OF: Record<Kind, Operation[]> = { change: ['write', 'edit', 'delete'], command: ['execute'] };

/** `reason`: `why` in words (reasonWords). */
export type ModeDecision =
  | { decision: 'allow'; reason: string; why: ApprovalWhy }
  /** `outsideSandbox`: an execute that asked to run outside the sandbox, with the model's reason. */
  | { decision: 'ask'; reason: string; why: ApprovalWhy; outsideSandbox?: { reason: string } }
  | { decision: 'deny'; reason: string; why: ApprovalWhy }
  /** Plan mode: not run, not asked; the tool result is `Error: ${PLAN_MODE_REFUSAL}`. */
  | { decision: 'refuse'; reason: string; why: ApprovalWhy };

/** A decision for `why`, said in its words. */
export function modeDecision<D extends ModeDecision['decision']>(decision: D, why: ApprovalWhy): { decision: D; reason: string; why: ApprovalWhy } {
  return { decision, reason: reasonWords(why), why };
}

export interface ModeContext {
  mode: ApprovalMode;
  /** The rules in force, the person's first (DEFAULT_RULES, if present, are recognised). */
  rules: readonly PermissionRule[];
  /** Whether commands run in an OS sandbox here. */
  sandboxAvailable: boolean;
  /** Where named paths lead through symlinks (see EvaluateOptions): rules see both. */
  resolvedTargets?: Readonly<Record<string, string>>;
  /** Whether an MCP tool is annotated `readOnlyHint: true` by its server (the only ones plan mode runs). */
  readOnlyTool?: (name: string) => boolean;
}

/** Whether an execute call asks to run outside the sandbox (anything but absent or `true`). */
export function wantsOutsideSandbox(args: Record<string, unknown>): boolean {
  return args.sandbox !== undefined && args.sandbox !== true;
}

/** The decision for one tool call: the rules' verdict, shaped by the mode and the sandbox. */
export function decideCall(request: PermissionRequest, context: ModeContext): ModeDecision {
  const operation = operationOf(request.tool);
  const kind = operation === null ? undefined : KIND_OF[operation];
  const verdict = evaluatePermission(request, context.rules, context);
  if (verdict.decision === 'deny') return verdict;
  // MCP tools: the rules decide in every mode (they ask by default); plan runs only the ones
  // their server calls read-only, and the annotation never spares the question.
  if (isMcpTool(request.tool)) {
    if (context.mode === 'plan' && context.readOnlyTool?.(request.tool) !== true) return modeDecision('refuse', { kind: 'mode', mode: 'plan', detail: 'not-read-only' });
    return verdict;
  }
  if (kind === undefined) return verdict;

  let effect = MODE_TABLE[context.mode][kind];
  if (effect === 'refuse') return modeDecision('refuse', { kind: 'mode', mode: context.mode });
  const outside = kind === 'command' && wantsOutsideSandbox(argsOf(request));
  // Nothing contains a command here: only a rule of the person's lets it run unasked.
  if (kind === 'command' && (outside || !context.sandboxAvailable)) effect = 'rules';

  const decided = effect === 'rules' ? verdict : runUnlessGuarded(request, kind, context);
  if (decided.decision === 'deny' || !outside) return decided;
  const modelReason = argsOf(request).reason;
  return {
    ...modeDecision('ask', { kind: 'outside-sandbox' }),
    outsideSandbox: { reason: typeof modelReason === 'string' && modelReason.trim() !== '' ? modelReason.trim() : '(no reason given)' },
  };
}

/**
 * `run`: the call runs unless the person's own rules deny or ask, or a guard asks (a
 * protected path, for commands one named in the command line). The rule engine decides:
 * the person's ask rules are evaluated as deny (so that none is hidden behind another
 * part's reason), then the mode's allow stands in for the default rules.
 */
function runUnlessGuarded(request: PermissionRequest, kind: Kind, context: ModeContext): ModeDecision {
  const asking = new Set<PermissionRule>();
  const probeRules: PermissionRule[] = [];
  for (const rule of context.rules) {
    if (isDefaultRule(rule)) continue;
    if (rule.decision === 'ask') {
      const strict: PermissionRule = { ...rule, decision: 'deny' };
      asking.add(strict);
      probeRules.push(strict);
    } else probeRules.push(rule);
  }
  probeRules.push({ id: `mode-${context.mode}`, operations: OPERATIONS_OF[kind], decision: 'allow', description: `${context.mode} mode` });
  const probe = evaluatePermission(request, probeRules, context);
  if (probe.decision === 'deny') {
    if (probe.rule !== undefined && asking.has(probe.rule)) return modeDecision('ask', probe.why.kind === 'rule' ? { ...probe.why, decision: 'ask' } : probe.why);
    return probe;
  }
  if (probe.decision === 'allow') return modeDecision('allow', { kind: 'mode', mode: context.mode });
  if (kind === 'change') return probe;
  // A command the analyser cannot prove inert runs contained; one that names a protected path asks.
  const named = protectedPathNamed(argsOf(request).command);
  if (named !== null) return modeDecision('ask', { kind: 'names-protected-path', path: named.path, protects: protectedReason(named.pattern) });
  return modeDecision('allow', { kind: 'mode', mode: context.mode, detail: 'sandboxed' });
}

/** One of DEFAULT_RULES (or a copy of one, by its `default-` id). */
export function isDefaultRule(rule: PermissionRule): boolean {
  return DEFAULT_RULES.includes(rule) || (rule.id?.startsWith('default-') ?? false);
}

/**
 * A protected path written anywhere in the command line (a word, a redirection target, a
 * quoted string): tokens are cut at blanks, quotes and shell operators, and `--opt=value`
 * gives its value. Over-matching only asks.
 */
export function protectedPathNamed(command: unknown): { path: string; pattern: string } | null {
  if (typeof command !== 'string') return null;
  const words = analyzeCommand(command).commands.flatMap((part) => part.words.slice(1));
  const tokens = command.split(/[\s'"`<>|;&(){}$]+/);
  for (let token of [...words, ...tokens]) {
    const eq = token.startsWith('-') ? token.indexOf('=') : -1;
    if (eq >= 0) token = token.slice(eq + 1);
    if (token === '' || token.startsWith('-') || token.includes('://')) continue;
    const pattern = protectedPattern(token, undefined, true);
    if (pattern !== null) return { path: token, pattern };
  }
  return null;
}
