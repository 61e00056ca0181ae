// Permission rules (SPEC §4 "Permission rules"): ordered rules, the first that matches
// decides. Shell commands are split into simple commands and each must be allowed;
// substitutions, redirections into files and shell wrappers always ask; writes to
// protected paths never run without asking.
import { compileGlob } from '../../backends/filesystem/glob-match';
import type { GlobMatcher } from '../../backends/filesystem/glob-match';
import { matchesCommandPattern } from './command-patterns';
import { PROTECTED_PATHS, protectedPattern, protectedReason } from './protected-paths';
import { analyzeCommand } from './shell-parse';
import { oneLine } from '../../text/markdown-code';
import type { ShellCommand } from './shell-parse';
import { argsOf, isMcpTool, operationOf, targetPaths, toolNameMatches } from './tool-targets';
import type { Operation, PermissionRequest, PermissionRule, PermissionVerdict } from './types';
import { reasonWords, type ApprovalWhy, type ReasonSubject } from './reason';

export type { PermissionRequest, PermissionRule } from './types';
export { PROTECTED_PATHS } from './protected-paths';
export { operationOf, targetPaths } from './tool-targets';
export { suggestAllowRule } from './suggest';

/** Put the person's own rules before these: reads are allowed, everything else asks. */
export const DEFAULT_RULES: PermissionRule[] = [
  { id: 'default-read', operations: ['read'], decision: 'allow', description: 'reading and searching files is allowed by default' },
  { id: 'default-write', operations: ['write', 'edit', 'delete'], decision: 'ask', description: 'writes, edits and deletes ask by default' },
  { id: 'default-execute', operations: ['execute'], decision: 'ask', description: 'shell commands ask by default' },
];

export interface EvaluateOptions {
  /** Replaces PROTECTED_PATHS (spread it to add to it). */
  protectedPaths?: readonly string[];
  /**
   * Where a named path (normalised virtual) leads through symlinks, when elsewhere in the
   * folder. Rules and protected paths are matched on both: either one denied denies,
   * either one asking asks, and only both allowed allows.
   */
  resolvedTargets?: Readonly<Record<string, string>>;
}

const STRICTNESS: Record<PermissionVerdict['decision'], number> = { allow: 0, ask: 1, deny: 2 };

const WRITE_OPERATIONS: ReadonlySet<Operation> = new Set(['write', 'edit', 'delete']);

export function evaluatePermission(
  request: PermissionRequest,
  rules: readonly PermissionRule[],
  options: EvaluateOptions = {},
): PermissionVerdict {
  const protectedPaths = options.protectedPaths ?? PROTECTED_PATHS;
  const operation = operationOf(request.tool);
  if (operation === 'execute') return evaluateCommand(request, rules, protectedPaths);

  const named = targetPaths(request);
  const resolved = named.map((p) => (Object.hasOwn(options.resolvedTargets ?? {}, p) ? options.resolvedTargets![p]! : p));
  const verdict = evaluatePaths(request.tool, operation, named, rules, protectedPaths);
  if (resolved.every((p, i) => p === named[i])) return verdict;
  const via = named.map((p, i) => (resolved[i] === p ? p : `${resolved[i]} (through the symlink ${p})`));
  const linked = evaluatePaths(request.tool, operation, resolved, rules, protectedPaths, via);
  return STRICTNESS[linked.decision] > STRICTNESS[verdict.decision] ? linked : verdict;
}

function evaluatePaths(
  tool: string,
  operation: Operation | null,
  paths: readonly string[],
  rules: readonly PermissionRule[],
  protectedPaths: readonly string[],
  shown: readonly string[] = paths,
): PermissionVerdict {
  const subject: ReasonSubject = { tool, paths: [...shown] };
  let verdict: PermissionVerdict | null = null;
  for (const [index, rule] of rules.entries()) {
    if (!matchesTool(rule, tool, operation)) continue;
    if (rule.commands !== undefined) continue;
    if (rule.paths !== undefined && !paths.some((p) => rule.paths!.some((glob) => pathMatches(glob, p)))) continue;
    verdict = ruleVerdict(rule, index, subject);
    break;
  }
  verdict ??=
    operation === null
      ? isMcpTool(tool)
        ? said('ask', { kind: 'mcp-tool-not-allowed', subject })
        : said('allow', { kind: 'no-side-effects', tool })
      : operation === 'read'
        ? said('allow', { kind: 'read-default' })
        : said('ask', { kind: 'not-allowed', subject });

  if (verdict.decision === 'allow' && operation !== null && WRITE_OPERATIONS.has(operation)) {
    for (const [i, path] of paths.entries()) {
      const pattern = protectedPattern(path, protectedPaths);
      if (pattern !== null) return said('ask', { kind: 'protected-path', path: shown[i]!, protects: protectedReason(pattern) });
    }
  }
  return verdict;
}

function evaluateCommand(request: PermissionRequest, rules: readonly PermissionRule[], protectedPaths: readonly string[]): PermissionVerdict {
  const command = argsOf(request).command;
  if (typeof command !== 'string') return said('ask', { kind: 'command-missing' });
  const analysis = analyzeCommand(command);
  const commands: ShellCommand[] = analysis.commands.length > 0 ? analysis.commands : [{ text: '', argv: [], dynamicArgv: [], words: [], dynamic: [], nested: false }];
  const verdicts = commands.map((c) => evaluatePart(c, request.tool, rules, protectedPaths));

  const denied = verdicts.find((v) => v.decision === 'deny');
  if (denied) return denied;
  if (analysis.alwaysAsk.length > 0) return said('ask', { kind: 'always-asks', reasons: analysis.alwaysAsk });
  const asked = verdicts.find((v) => v.decision === 'ask');
  if (asked) return asked;
  const first = verdicts[0]!;
  if (verdicts.length === 1) return first;
  return said('allow', { kind: 'parts', parts: verdicts.map((v) => v.why) }, first.rule);
}

function evaluatePart(command: ShellCommand, tool: string, rules: readonly PermissionRule[], protectedPaths: readonly string[]): PermissionVerdict {
  const subject: ReasonSubject = { command: command.text === '' ? '' : oneLine(command.text, 80) };
  let verdict: PermissionVerdict = said('ask', { kind: 'not-allowed', subject });
  for (const [index, rule] of rules.entries()) {
    if (!matchesTool(rule, tool, 'execute')) continue;
    if (rule.paths !== undefined) continue;
    // Deny rules match the program by its base name and computed words as anything.
    const deny = rule.decision === 'deny';
    const options = deny ? { matchBaseName: true, dynamic: command.dynamic } : {};
    if (rule.commands !== undefined && !rule.commands.some((p) => matchesCommandPattern(p, command.words, options))) continue;
    verdict = ruleVerdict(rule, index, subject);
    break;
  }
  if (verdict.decision !== 'allow') return verdict;
  // An allow rule never covers a form that writes files or runs programs (command-effects.ts).
  if (command.escalation !== undefined) return said('ask', { kind: 'escalation', subject, escalation: command.escalation });
  // Commands may write anywhere; one that names a protected path is not allowed silently.
  for (const word of pathLikeWords(command.words)) {
    const pattern = protectedPattern(word, protectedPaths, true);
    if (pattern !== null) return said('ask', { kind: 'names-protected-path', subject, path: word, protects: protectedReason(pattern) });
  }
  return verdict;
}

function matchesTool(rule: PermissionRule, tool: string, operation: Operation | null): boolean {
  // A rule that refuses or asks covers at least what it says (see toolNameMatches).
  const broad = rule.decision !== 'allow';
  if (rule.tools !== undefined && !rule.tools.some((t) => toolNameMatches(t, tool, { broad }))) return false;
  if (rule.operations !== undefined && (operation === null || !rule.operations.includes(operation))) return false;
  return true;
}

function ruleVerdict(rule: PermissionRule, index: number, subject: ReasonSubject): PermissionVerdict {
  const ref = rule.description !== undefined ? { description: rule.description } : rule.id !== undefined ? { id: rule.id } : { index };
  return said(rule.decision, { kind: 'rule', subject, decision: rule.decision, rule: ref }, rule);
}

/** A verdict for `why`, said in its words. */
function said(decision: PermissionVerdict['decision'], why: ApprovalWhy, rule?: PermissionRule): PermissionVerdict {
  return { decision, reason: reasonWords(why), why, ...(rule !== undefined ? { rule } : {}) };
}

const globCache = new Map<string, GlobMatcher>();

function pathMatches(glob: string, path: string): boolean {
  let matcher = globCache.get(glob);
  if (matcher === undefined) {
    matcher = compileGlob(glob);
    globCache.set(glob, matcher);
  }
  return matcher.matches(path.slice(1));
}

/** Arguments that may be paths: not options, except the value of `--opt=value`; no URLs. */
function pathLikeWords(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let word of words.slice(1)) {
    if (word.startsWith('-')) {
      const eq = word.indexOf('=');
      if (eq < 0) continue;
      word = word.slice(eq + 1);
    }
    if (word === '' || word.includes('://')) continue;
    out.push(word);
  }
  return out;
}
