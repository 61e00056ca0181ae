// The differential test that keeps the analyser honest (issue 9 §1): a generated corpus
// (seeded, so reproducible) plus every hostile and ordinary command of the unit tests is
// run through the analyser and through real bash instrumented to report every program it
// executes (bash-oracle.test-support.ts). Whenever the analyser says it understood a
// command (nothing to always ask) yet bash executes a program it did not report, with
// those exact arguments, or creates a file, or runs a builtin that evaluates code that it
// did not report, the test fails and prints the smallest failing command it can find.
// It also checks the verdicts directly: with only inert commands allowed, an allowed
// command never makes bash run a program outside that set; with `rm` and `git push`
// denied and everything else allowed, an allowed command never runs either.
import { describe, expect, it } from 'vitest';
import { oracleAvailable, runInBash, type OracleResult } from './bash-oracle.test-support';
import { evaluatePermission } from './rules';
import { DENY_EVASIONS, DENY_RM, INERT_ALLOW, MUST_NOT_ALLOW, STAYS_ALLOWED } from './shell-attacks.test-support';
import { generateCorpus, type Case } from './shell-corpus.test-support';
import { analyzeCommand, type CommandAnalysis, type ShellCommand } from './shell-parse';
import type { PermissionRule } from './types';

const SEED = 20261122;
const GENERATED = 4000;
const ALLOW_ALL: PermissionRule = { tools: ['execute'], decision: 'allow' };
// Builtins that can make bash evaluate data: if bash ran one, the analyser must have seen it.
const EVALUATING_BUILTINS = new Set([
  'eval', 'source', '.', 'trap', 'enable', 'alias', 'declare', 'typeset', 'local', 'export', 'readonly', 'let', 'printf', 'read',
  'mapfile', 'readarray', 'unset', 'test', '[', 'set', 'shopt', 'fc', 'compgen', 'complete', 'getopts', 'wait', 'hash', 'exec',
  'command', 'builtin', 'coproc', 'bind',
]);

const run = (command: string) => ({ tool: 'execute', args: { command } });
const base = (word: string) => word.slice(word.lastIndexOf('/') + 1);

function fixedCases(): Case[] {
  const all = [...Object.values(MUST_NOT_ALLOW).flat(), ...DENY_EVASIONS, ...STAYS_ALLOWED];
  return all.map((c) => [c]);
}

/** Whether `executed` (a program's base name and arguments) is one of the reported commands. */
function reported(executed: readonly string[], commands: readonly ShellCommand[]): boolean {
  // As written, or as run once wrappers that are shell builtins (`command`, `exec`, …)
  // dropped the words before it (any suffix of argv), or as the analyser peeled it.
  const forms = commands.flatMap((c) => [
    ...c.argv.map((_, k) => ({ words: c.argv.slice(k), dynamic: c.dynamicArgv.slice(k) })),
    { words: c.words, dynamic: c.dynamic },
  ]);
  return forms.some(({ words, dynamic }) => {
    if (words.length === 0 || base(words[0]!) !== executed[0]) return false;
    return matchArgs(words.slice(1), dynamic.slice(1), executed.slice(1));
  });
}

function matchArgs(words: readonly string[], dynamic: readonly boolean[], actual: readonly string[]): boolean {
  if (words.length === 0) return actual.length === 0;
  if (dynamic[0]) {
    for (let k = 0; k <= actual.length; k++) if (matchArgs(words.slice(1), dynamic.slice(1), actual.slice(k))) return true;
    return false;
  }
  return actual.length > 0 && actual[0] === words[0] && matchArgs(words.slice(1), dynamic.slice(1), actual.slice(1));
}

/** `git [-C dir] [-c x=y] [--flag…] push …`, as git would read it. */
function isGitPush(executed: readonly string[]): boolean {
  if (executed[0] !== 'git') return false;
  let i = 1;
  while (i < executed.length && executed[i]!.startsWith('-')) i += executed[i] === '-C' || executed[i] === '-c' ? 2 : 1;
  return executed[i] === 'push';
}

function firstWord(bashCommand: string): string | null {
  return /^([A-Za-z_.:[][A-Za-z0-9_.-]*)(?=[ \t\n]|$)/.exec(bashCommand)?.[1] ?? null;
}

/** What is wrong with the analyser's view of `command`, given what bash did; null when nothing. */
function discrepancy(command: string, analysis: CommandAnalysis, result: OracleResult, tmpSeen: Set<string>): string | null {
  const created = result.created.filter((f) => !f.startsWith('/tmp/') || f.startsWith('/tmp/oracle/') || !tmpSeen.has(f));
  for (const f of result.created) if (f.startsWith('/tmp/') && !f.startsWith('/tmp/oracle/')) tmpSeen.add(f);
  const verdictInert = evaluatePermission(run(command), [INERT_ALLOW]).decision;
  const verdictDeny = evaluatePermission(run(command), [DENY_RM, ALLOW_ALL]).decision;
  if (verdictDeny === 'allow') {
    const denied = result.executed.find((e) => e[0] === 'rm' || isGitPush(e));
    if (denied) return `allowed with rm and git push denied, but bash ran ${JSON.stringify(denied)}`;
  }
  // The analyser claims to know everything such a command runs (nothing always asks), and
  // that an allowed one writes nothing (a writing form would ask: command-effects.ts).
  const allowed = verdictInert === 'allow' || verdictDeny === 'allow';
  if (analysis.alwaysAsk.length > 0 && !allowed) return null;
  const unreported = result.executed.find((e) => !reported(e, analysis.commands));
  if (unreported) return `bash ran ${JSON.stringify(unreported)}, which the analyser did not report (it reported ${JSON.stringify(analysis.commands.map((c) => c.argv))})`;
  if (created.length > 0 && allowed) return `bash created ${created.join(', ')}, and the command was allowed`;
  const names = new Set(analysis.commands.flatMap((c) => [c.argv[0], c.words[0]].filter((w): w is string => w !== undefined)));
  for (const text of result.commands) {
    const name = firstWord(text);
    if (name !== null && EVALUATING_BUILTINS.has(name) && !names.has(name)) return `bash ran the builtin \`${name}\` (${JSON.stringify(text)}), which the analyser did not report`;
  }
  return null;
}

let lastRun = 0;

async function failures(cases: readonly Case[]): Promise<{ index: number; why: string }[]> {
  const commands = cases.map((c) => c.join(''));
  const analyses = commands.map((c) => analyzeCommand(c));
  // Only what some rule set could let run needs bash: a command that always asks never runs unasked.
  const toRun = commands
    .map((c, i) => ({ c, i }))
    .filter(({ c, i }) => !c.includes('\0') && (analyses[i]!.alwaysAsk.length === 0 || evaluatePermission(run(c), [DENY_RM, ALLOW_ALL]).decision === 'allow' || evaluatePermission(run(c), [INERT_ALLOW]).decision === 'allow'));
  const results = await runInBash(toRun.map(({ c }) => c));
  lastRun = toRun.length;
  const tmpSeen = new Set<string>();
  const out: { index: number; why: string }[] = [];
  toRun.forEach(({ c, i }, k) => {
    const why = discrepancy(c, analyses[i]!, results[k]!, tmpSeen);
    if (why !== null) out.push({ index: i, why });
  });
  return out;
}

/** Drops pieces of a failing case while it still fails. */
async function shrink(failing: Case): Promise<Case> {
  let current = failing;
  for (let round = 0; round < 8 && current.length > 1; round++) {
    const candidates = current.map((_, k) => current.filter((__, j) => j !== k));
    const failed = await failures(candidates);
    if (failed.length === 0) break;
    current = candidates[failed[0]!.index]!;
  }
  return current;
}

describe.runIf(oracleAvailable())('the analyser against real bash', () => {
  it(`reports everything bash runs, for the unit tests' commands and ${GENERATED} generated ones (seed ${SEED})`, { timeout: 120_000 }, async () => {
    const cases = [...fixedCases(), ...generateCorpus(SEED, GENERATED)];
    const started = Date.now();
    const found = await failures(cases);
    const ran = lastRun;
    const report: string[] = [];
    if (process.env.DIFFERENTIAL_DUMP) for (const f of found) console.log(JSON.stringify(cases[f.index]!.join('')), f.why);
    for (const f of found.slice(0, 5)) {
      const minimal = await shrink(cases[f.index]!);
      report.push(`${JSON.stringify(minimal.join(''))}\n    ${f.why}`);
    }
    console.log(`differential test: ${cases.length} commands, ${ran} run in bash, ${found.length} discrepancies, ${Date.now() - started} ms`);
    expect(report, `${found.length} commands where bash did more than the analyser saw; smallest forms:\n${report.join('\n')}`).toEqual([]);
  });

  it('catches a command the analyser misses (the oracle is not blind)', async () => {
    const results = await runInBash(["x='a[$(touch M)]'; echo $((x))", 'echo hi > f', '/bin/rm -f x', "printf -v 'a[$(id)]' x", 'env -i nice -n 5 timeout 5 rm x']);
    expect(results.map((r) => r.executed)).toEqual([[['touch', 'M']], [], [['rm', '-f', 'x']], [['id']], [['rm', 'x']]]);
    expect(results[1]!.created).toEqual(['/tmp/oracle/w/1/f']);
  });
});
