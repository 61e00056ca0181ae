// THE decision point (SPEC §7, §11, §22, §23): every request that can change something —
// Deepdesk's own tool calls (with a hook's answer), another agent's permission requests, its
// writes and its terminals — is decided by `decide`, in one fixed order: deny rules; protected
// paths on the resolved target and the named path; plan mode; the mode and the allow rules (the
// shell analysis for commands); the sandbox; with a reviewer, sensitive writes inside the folder
// (SPEC §23 (5)), a file tool's before it is made and a command's found in its write layer
// (`reviewLayerWrites`). What asks is answered through `ask`, the one place a broker or a
// reviewer is called: who answers is the Answerer (review/answerer.ts builds it).

import type { Backend } from '../backends/protocol';
import type { TargetGuard } from '../backends/target-guard';
import type { HookPermission } from '../extensions/hooks/call-permission';
import type { LayerWrite } from '../sandbox/types';
import { applyEdit } from '../backends/text';
import { unifiedHunks } from '../text/unified-diff';
import type { DecidedBy } from '../telemetry/observer';
import { decideCall, isDefaultRule, modeDecision, protectedPathNamed, type ModeContext, type ModeDecision } from './permissions/modes';
import { protectedPattern, protectedReason } from './permissions/protected-paths';
import type { ApprovalWhy } from './permissions/reason';
import { sensitiveWrite, type WriteContents } from './permissions/sensitive-writes';
import { operationOf, targetPaths, type PermissionRule } from './permissions/rules';
import type { AnsweredIn, ApprovalDecision, ApprovalRequest, ReviewVerdict } from './types';

export type { DecidedBy } from '../telemetry/observer';

export interface ApprovalBroker {
  /** Resolves with the person's decision; rejects if the signal aborts. */
  decide(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
  /** Told around each wait for an answer: while the person is asked, a run's slot goes to another run. */
  waiting?: { asking(): void; answered(signal: AbortSignal): Promise<void> };
}

/**
 * Who answers what asks. The person, through their broker (the window's card, `run`'s prompt,
 * an editor, `attach`); or the reviewer of SPEC §23, answering before the person and handing
 * them (`broker`) what it cannot answer: its failures, a tripped breaker, protected paths.
 */
export type Answerer = ({ kind: 'person' } | { kind: 'reviewer'; reviewer: Reviewer }) & {
  broker: ApprovalBroker;
  /** Spends the person's allowance of this exact call, given after the reviewer denied it (SPEC §23): the denied call's id, if there was one. */
  allowedOnce?(question: ApprovalRequest): Promise<string | undefined>;
};

/** SPEC §23's reviewer (review/): a verdict the host derived, or why it could not give one (the person is then asked). */
export interface Reviewer {
  review(question: ApprovalRequest, signal: AbortSignal): Promise<ReviewAnswer>;
}
export type ReviewAnswer = { answered: true; verdict: ReviewVerdict } | { answered: false; because: string };

/** The run a request is decided in: its mode, rules and sandbox (ModeContext), and more. */
export interface DecisionContext extends Omit<ModeContext, 'resolvedTargets'> {
  /** The thread the person sees (a subagent's calls too): the question names it. */
  threadId: string;
  /** Where named paths lead through symlinks, and which changes always ask: the run's backend. */
  backend?: Pick<Backend, 'linkTarget' | 'alwaysAskReason' | 'linkedNames'> & Partial<Pick<Backend, 'readRaw'>>;
  /** Another agent asks (SPEC §22): its name, for the question. A protected path answers it no. */
  agent?: string;
  /** A reviewer answers this run's questions (SPEC §23): sensitive writes inside the folder then ask it. */
  reviewing?: boolean;
  /** Other agents' configuration in a folder (their vendors'): a write there is sensitive. */
  agentConfig?: readonly string[];
}

export interface DecisionRequest {
  /** The call's id: the question names it. */
  id: string;
  /** Deepdesk's tool and its arguments (another agent's request mapped onto them). */
  tool: string;
  args: Record<string, unknown>;
  /** A PreToolUse hook's answer (SPEC §11). */
  hook?: HookPermission;
  /** Host paths outside the folder another agent's request names: no rule speaks of them, so they ask. */
  outside?: readonly string[];
}

/**
 * The targets a call was checked against: any other link target met when the backend touches a
 * file is decided again there. `approve`: where the person's edited arguments lead now.
 */
export type CheckedTargets = TargetGuard & { approve(links: Readonly<Record<string, string>>): void };

/** `reason`: `why` in words. `refuse`: plan mode (the tool result is `Error: ${PLAN_MODE_REFUSAL}`). */
export type Decision = { reason: string; why: ApprovalWhy; decidedBy: DecidedBy } & (
  | { decision: 'allow'; guard: CheckedTargets }
  | { decision: 'deny' }
  | { decision: 'refuse' }
  | { decision: 'ask'; question: ApprovalRequest; guard: CheckedTargets }
);

/** Where and by whom the person answered (a terminal, a protocol client). */
type Answered = { answeredIn?: AnsweredIn; answeredBy?: string };

/** Stands in for the default rules when a hook allows a call. */
const HOOK_ALLOW_RULE: PermissionRule = { id: 'hook-allow', tools: ['*'], decision: 'allow', description: 'a PreToolUse hook allowed this call' };

/** Decides one request in its run; `ask` is answered by `ask`. */
export async function decide(request: DecisionRequest, context: DecisionContext): Promise<Decision> {
  const { tool, args } = request;
  const links = await linkTargets(context.backend, tool, args);
  const rule = (resolvedTargets: Record<string, string>, over: Partial<ModeContext> = {}): ModeDecision =>
    refusedToAgents(decideCall({ tool, args }, { ...context, resolvedTargets, ...over }), tool, args, resolvedTargets, context);
  const ruled = rule(links.inside);
  // Writes that would change what other programs run later (git's hooks and config) ask
  // whatever the mode and the rules; deny and plan mode still win.
  const forced = ruled.decision === 'allow' ? await alwaysAsk(context.backend, tool, args, links) : null;
  let verdict: ModeDecision = forced !== null ? modeDecision('ask', forced) : ruled;
  // A PreToolUse hook's answer (SPEC §11): `ask` asks even what would run; `allow` spares
  // only the question the defaults would ask — the same call with the default rules
  // allowing must run, so deny and ask rules of the person's, protected paths, plan mode,
  // `sandbox: false` and what always asks still stand.
  const hook = request.hook;
  if (hook?.decision === 'ask' && verdict.decision === 'allow') verdict = modeDecision('ask', { kind: 'hook', outcome: 'asks', message: hook.reason });
  if (hook?.decision === 'allow' && verdict.decision === 'ask' && forced === null) {
    if (rule(links.inside, { rules: [...context.rules.filter((r) => !isDefaultRule(r)), HOOK_ALLOW_RULE] }).decision === 'allow') verdict = modeDecision('allow', { kind: 'hook', outcome: 'allowed', message: hook.reason });
  }
  // Host paths outside the folder: rules and modes speak of the folder's, so none allows them.
  const outside = request.outside?.[0];
  if (outside !== undefined && verdict.decision === 'allow') verdict = modeDecision('ask', { kind: 'not-allowed', subject: { tool, paths: [outside] } });
  // What would run unasked and writes a file that later runs or steers a program asks the run's reviewer, with its diff.
  const sensitive = verdict.decision === 'allow' && context.reviewing === true ? await sensitiveFileWrite(context, tool, args, links) : null;
  if (sensitive !== null) verdict = modeDecision('ask', sensitive.why);

  const { reason, why } = verdict;
  if (verdict.decision === 'deny') return { decision: 'deny', reason, why, decidedBy: 'rule' };
  if (verdict.decision === 'refuse') return { decision: 'refuse', reason, why, decidedBy: 'mode' };
  const guard = checkedTargets(links.inside, (named, resolved) => rule({ [named]: resolved }));
  if (verdict.decision === 'allow') {
    // The mode decided when the rules alone (the `ask` mode) would have asked: for a command, the sandbox it runs in.
    const byMode = why.kind !== 'hook' && rule(links.inside, { mode: 'ask' }).decision !== 'allow';
    const decidedBy = why.kind === 'hook' ? 'hook' : !byMode ? 'rule' : operationOf(tool) === 'execute' ? 'sandbox' : 'mode';
    return { decision: 'allow', reason, why, decidedBy, guard };
  }
  const question: ApprovalRequest = { threadId: context.threadId, toolCallId: request.id, toolName: tool, args, reason, why, ...(links.shown !== undefined ? { resolvedTarget: links.shown } : {}) };
  if (verdict.outsideSandbox) question.outsideSandbox = verdict.outsideSandbox;
  if (sensitive !== null) question.diff = sensitive.diff;
  if (context.agent !== undefined) question.agent = context.agent;
  return { decision: 'ask', reason, why, decidedBy: why.kind === 'hook' ? 'hook' : 'rule', question, guard };
}

export interface Asked {
  decision: ApprovalDecision;
  decidedBy: DecidedBy;
  where: Answered;
  /** The reviewer's verdict, when it decided. */
  review?: ReviewVerdict;
  /** Why the reviewer could not answer, when the person was asked instead. */
  reviewFailed?: string;
  /** The person allowed this call once, after the reviewer denied the call of this id. */
  once?: string;
}

/**
 * Asks whoever answers (the one call of a broker, and of a reviewer). A call the person allowed
 * once runs as theirs. A reviewer answers first (SPEC §23) except for protected paths, which are
 * the person's; its allow approves, its deny rejects with its rationale; when it cannot answer,
 * the person is asked, told why. `told` hears who is asked as it goes (and why the reviewer could not answer).
 */
export async function ask(question: ApprovalRequest, answerer: Answerer, signal: AbortSignal, told?: (by: 'reviewer' | 'person', reviewFailed?: string) => void): Promise<Asked> {
  const once = personOnly(question) ? undefined : await answerer.allowedOnce?.(question);
  if (once !== undefined) return { decision: { type: 'approve' }, decidedBy: 'person', where: {}, once };
  let reviewFailed: string | undefined;
  if (answerer.kind === 'reviewer' && !personOnly(question)) {
    told?.('reviewer');
    const answer = await answerer.reviewer.review(question, signal);
    if (answer.answered) {
      const { verdict } = answer;
      return { decision: verdict.decision === 'allow' ? { type: 'approve' } : { type: 'reject', message: verdict.rationale }, decidedBy: 'reviewer', where: {}, review: verdict };
    }
    reviewFailed = answer.because;
  }
  told?.('person', reviewFailed);
  const { broker } = answerer;
  broker.waiting?.asking();
  try {
    const decision = await broker.decide(question, signal);
    const { answeredIn, answeredBy } = decision as Answered;
    return { decision, decidedBy: 'person', where: { ...(answeredIn !== undefined ? { answeredIn } : {}), ...(answeredBy !== undefined ? { answeredBy } : {}) }, ...(reviewFailed !== undefined ? { reviewFailed } : {}) };
  } finally {
    await broker.waiting?.answered(signal);
  }
}

/**
 * Protected paths and what always asks are the person's to answer, never a reviewer's: by the
 * reason, and by the call's own targets (a call may ask for another reason first).
 */
function personOnly(question: ApprovalRequest): boolean {
  const byWhy = (why: ApprovalWhy): boolean => (why.kind === 'parts' ? why.parts.some(byWhy) : why.kind === 'protected-path' || why.kind === 'names-protected-path' || why.kind === 'always-asks-path');
  if (question.why !== undefined && byWhy(question.why)) return true;
  const { toolName: tool, args } = question;
  if (typeof args.command === 'string' && protectedPathNamed(args.command) !== null) return true;
  return [...targetPaths({ tool, args }), ...(question.resolvedTarget !== undefined ? [question.resolvedTarget] : [])].some((path) => protectedPattern(path) !== null);
}

/**
 * Asks about each sensitive write a command made in its write layer (SPEC §23 (5)) before the
 * layer is applied: the command is the action, the file's diff what is shown. The refused
 * paths, each with why (its blocked line's words).
 */
export async function reviewLayerWrites(question: Omit<ApprovalRequest, 'reason' | 'why'>, writes: readonly LayerWrite[], answerer: Answerer, signal: AbortSignal, agentConfig?: readonly string[]): Promise<Map<string, string>> {
  const refused = new Map<string, string>();
  for (const write of writes) {
    const name = await sensitiveName(write.path, async () => write.names?.() ?? [], agentConfig);
    if (name === undefined) continue;
    const contents = write.contents();
    const found = sensitiveWrite(name, contents, agentConfig);
    if (found === null) continue;
    const { reason, why } = modeDecision('ask', { kind: 'sensitive-write', path: name, what: throughLink(found.what, write.path, name) });
    // The person's allowance of the command once is not one of what it writes.
    const { decision, decidedBy } = await ask({ ...question, reason, why, diff: writeDiff(write.path, contents) }, { ...answerer, allowedOnce: async () => undefined }, signal);
    if (decision.type === 'approve') continue;
    const message = decision.type === 'reject' || decision.type === 'respond' ? decision.message?.trim() : undefined;
    refused.set(write.path, decidedBy === 'reviewer' ? `denied by the reviewer: ${message ?? 'no reason given'}` : `the person refused it${message ? `: ${message}` : ''}`);
  }
  return refused;
}

/**
 * The name a write is sensitive by (SPEC §23 (5)): its own, else another name in the folder
 * that leads to it through a link (a link at a sensitive name makes its target sensitive, for
 * as long as it exists). Undefined when none is.
 */
async function sensitiveName(path: string, names: () => Promise<readonly string[]>, agentConfig: readonly string[] | undefined): Promise<string | undefined> {
  if (sensitiveWrite(path, undefined, agentConfig) !== null) return path;
  return (await names()).find((name) => sensitiveWrite(name, undefined, agentConfig) !== null);
}

function throughLink(what: string, path: string, name: string): string {
  return name === path ? what : `${what}, through the link ${name} that leads to ${path}`;
}

/** The sensitive write (SPEC §23 (5)) a file tool's call would make, with its diff; null when it makes none. */
async function sensitiveFileWrite({ backend, agentConfig }: DecisionContext, tool: string, args: Record<string, unknown>, links: CallLinks): Promise<{ why: ApprovalWhy; diff: string } | null> {
  const operation = operationOf(tool);
  for (const { path: named, file } of changedPaths(tool, args, links.inside)) {
    const path = await sensitiveName(named, async () => (await backend?.linkedNames?.(file).catch(() => [])) ?? [], agentConfig);
    if (path === undefined) continue;
    const before = await backend?.readRaw?.(file).then((r) => (r.data === undefined ? null : Buffer.from(r.data).toString('utf8')), () => null) ?? null;
    const edited = operation === 'edit' ? applyEdit(before ?? '', String(args.old_string ?? ''), String(args.new_string ?? ''), args.replace_all === true) : null;
    const after = operation === 'delete' ? null : operation === 'write' ? String(args.content ?? '') : edited?.ok === true ? edited.content : before;
    const found = sensitiveWrite(path, { before, after }, agentConfig);
    if (found !== null) return { why: { kind: 'sensitive-write', path, what: throughLink(found.what, file, path) }, diff: writeDiff(file, { before, after }) };
  }
  return null;
}

/** A write as a unified diff (`/dev/null` for an absent side). */
function writeDiff(path: string, { before, after }: WriteContents): string {
  const head = [`--- ${before === null ? '/dev/null' : `a${path}`}`, `+++ ${after === null ? '/dev/null' : `b${path}`}`];
  return [...head, ...unifiedHunks(before ?? '', after ?? '')].join('\n');
}

/**
 * Another agent's change to a protected path (named or where a link leads) is refused, not
 * asked: it asks in its own process for what it could write there itself, and the sandbox
 * keeps those paths read-only to it.
 */
function refusedToAgents(verdict: ModeDecision, tool: string, args: Record<string, unknown>, resolvedTargets: Record<string, string>, context: DecisionContext): ModeDecision {
  if (context.agent === undefined || verdict.decision === 'deny') return verdict;
  for (const { path } of changedPaths(tool, args, resolvedTargets)) {
    const pattern = protectedPattern(path);
    if (pattern !== null) return modeDecision('deny', { kind: 'protected-path', path, protects: protectedReason(pattern).replace('always ask', 'are refused to other agents') });
  }
  return verdict;
}

/** What a call that writes, edits or deletes changes: each named path and the file a link there leads to (`file`, where it is read). */
function changedPaths(tool: string, args: Record<string, unknown>, links: Readonly<Record<string, string>>): { path: string; file: string }[] {
  if (!['write', 'edit', 'delete'].includes(operationOf(tool) ?? '')) return [];
  return targetPaths({ tool, args }).flatMap((named) => [...new Set([named, links[named] ?? named])].map((path) => ({ path, file: links[named] ?? named })));
}

function checkedTargets(links: Readonly<Record<string, string>>, again: (named: string, resolved: string) => ModeDecision): CheckedTargets {
  const checked = new Set(Object.entries(links).map(([named, resolved]) => `${named}\0${resolved}`));
  return {
    approve(edited) {
      for (const [named, resolved] of Object.entries(edited)) checked.add(`${named}\0${resolved}`);
    },
    check(_operation, named, resolved) {
      if (checked.has(`${named}\0${resolved}`)) return null;
      const decided = again(named, resolved);
      if (decided.decision === 'allow') return null;
      return `'${named}' now leads to '${resolved}' through a symlink that was not there when this call was checked (${decided.reason}); nothing was done. Call the tool again on '${resolved}' if you mean it`;
    },
  };
}

interface CallLinks {
  /** Named virtual path → the virtual path it leads to inside the folder, when different. */
  inside: Record<string, string>;
  /** The first differing target, for the person: a virtual path, or a real path outside the folder. */
  shown?: string;
}

/** Why a change this call makes must ask anyway (the backend knows what runs its files later), or null. */
async function alwaysAsk(backend: DecisionContext['backend'], tool: string, args: Record<string, unknown>, links: CallLinks): Promise<ApprovalWhy | null> {
  if (backend?.alwaysAskReason === undefined) return null;
  for (const { path } of changedPaths(tool, args, links.inside)) {
    const reason = await Promise.resolve(path).then((p) => backend.alwaysAskReason!(p)).catch(() => 'it could not be checked');
    if (reason !== null) return { kind: 'always-asks-path', path, because: reason };
  }
  return null;
}

/** Where the call's paths lead through symlinks (only for tools that touch files). */
export async function linkTargets(backend: DecisionContext['backend'], tool: string, args: Record<string, unknown>): Promise<CallLinks> {
  const out: CallLinks = { inside: {} };
  if (backend?.linkTarget === undefined || tool === 'execute') return out;
  for (const path of targetPaths({ tool, args })) {
    const target = await Promise.resolve(path).then((p) => backend.linkTarget!(p)).catch(() => null);
    if (target === null) continue;
    if ('virtual' in target) out.inside[path] = target.virtual;
    out.shown ??= 'virtual' in target ? target.virtual : `${target.outside} (outside the project folder)`;
  }
  return out;
}
