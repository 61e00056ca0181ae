// Ranking candidates (SPEC §21): N threads pursued one goal; the host orders them by the evidence
// it gathered itself — every verify step passing first, then the grader's criteria, then the
// smaller change (files and lines touched, new dependencies), then the cost. A candidate whose
// evidence contradicts its claim (it said done, a step failed) never ranks above one whose
// evidence passes: passing is the first key, and among the others the claimer goes last. Pure:
// it is handed the facts (the goal record, the diff, the ledger's cost).

import type { GoalState } from './goal';

/** What the host knows of one candidate when the set has ended. */
export interface CandidateFacts {
  /** Its place in the set (0-based): the last tie-break, so the order is stable. */
  index: number;
  threadId: string;
  state: GoalState;
  /** The host's verify results from the latest gate; undefined when the gate never ran. */
  steps?: ReadonlyArray<{ passed: boolean }>;
  /** The grader's latest verdict per criterion (undefined: not judged). */
  criteria: ReadonlyArray<{ verdict?: string | undefined }>;
  /** Final messages that claimed success while a verify step failed. */
  contradictedClaims: number;
  change: ChangeSize;
  /** What its calls cost (the ledger's sum); null when a price is unknown. */
  costUsd: number | null;
}

export interface ChangeSize {
  files: number;
  /** Lines added plus lines removed. */
  lines: number;
  newDependencies: number;
}

/** Why a candidate is where it is: the keys the ranking compared, in order. */
export interface RankKeys {
  /** The gate ran and every verify step exited as expected. */
  verifyPassed: boolean;
  /** Its claim of success was contradicted by the host's run (and its evidence does not pass now). */
  contradicted: boolean;
  stepsPassed: number;
  stepsTotal: number;
  criteriaSatisfied: number;
  criteriaTotal: number;
}

export interface Ranked<T extends CandidateFacts> {
  rank: number;
  candidate: T;
  keys: RankKeys;
}

export function rankKeys(c: CandidateFacts): RankKeys {
  const steps = c.steps;
  const verifyPassed = steps !== undefined && steps.every((s) => s.passed);
  return {
    verifyPassed,
    contradicted: !verifyPassed && c.contradictedClaims > 0,
    stepsPassed: steps?.filter((s) => s.passed).length ?? 0,
    stepsTotal: steps?.length ?? 0,
    criteriaSatisfied: c.criteria.filter((x) => x.verdict === 'satisfied').length,
    criteriaTotal: c.criteria.length,
  };
}

const fraction = (n: number, of: number) => (of === 0 ? 0 : n / of);

/** Negative when `a` ranks above `b`. */
function compare(a: CandidateFacts, ka: RankKeys, b: CandidateFacts, kb: RankKeys): number {
  return (
    Number(kb.verifyPassed) - Number(ka.verifyPassed) ||
    Number(ka.contradicted) - Number(kb.contradicted) ||
    fraction(kb.stepsPassed, kb.stepsTotal) - fraction(ka.stepsPassed, ka.stepsTotal) ||
    fraction(kb.criteriaSatisfied, kb.criteriaTotal) - fraction(ka.criteriaSatisfied, ka.criteriaTotal) ||
    a.change.files - b.change.files ||
    a.change.lines - b.change.lines ||
    a.change.newDependencies - b.change.newDependencies ||
    costOrder(a.costUsd) - costOrder(b.costUsd) ||
    a.index - b.index
  );
}

/** An unknown cost sorts after every known one. */
const costOrder = (usd: number | null) => (usd === null ? Number.POSITIVE_INFINITY : usd);

/** The candidates in rank order (1 first), each with the keys it was compared by. */
export function rankCandidates<T extends CandidateFacts>(candidates: readonly T[]): Ranked<T>[] {
  const keyed = candidates.map((candidate) => ({ candidate, keys: rankKeys(candidate) }));
  keyed.sort((x, y) => compare(x.candidate, x.keys, y.candidate, y.keys));
  return keyed.map((k, i) => ({ rank: i + 1, ...k }));
}

/** Manifests whose added entries are new dependencies. */
const MANIFESTS = /(^|\/)(package\.json|requirements[^/]*\.txt|pyproject\.toml|Cargo\.toml|go\.mod|Gemfile|composer\.json)$/;
/** An entry of a manifest's dependency list: `"name": "^1.2"`, `name==1.2`, `name = "1.2"`, `require x v1`. */
const DEPENDENCY_LINE = /^\s*(?:"[@\w./-]+"\s*:\s*"[^"]*"|[A-Za-z0-9_.-]+\s*(?:[=<>~!]=|=)\s*["']?[\w.*^~<>=-]+|[\w./-]+\s+v\d[\w.+-]*|gem\s+['"][\w-]+['"])\s*,?\s*$/;

/**
 * The size of a unified diff (`git diff` output): files, lines added plus removed, and entries
 * added to a dependency manifest beyond those removed from it.
 */
export function diffSize(diff: string): ChangeSize {
  const files = new Set<string>();
  let lines = 0;
  let added = 0;
  let removed = 0;
  let file = '';
  // In a JSON manifest, the object a line is in (a hunk's context shows it): only its `…dependencies` count.
  let section = '';
  for (const line of diff.split('\n')) {
    const header = /^diff --git a\/(.*) b\/(.*)$/.exec(line);
    if (header) {
      file = header[2]!;
      files.add(file);
      section = '';
      continue;
    }
    if (line.startsWith('+++ ') || line.startsWith('--- ') || line.startsWith('@@')) continue;
    const body = line.slice(1);
    const json = file.endsWith('.json');
    if (json) {
      const opens = /^\s*"([^"]+)"\s*:\s*\{/.exec(body);
      if (opens) section = opens[1]!;
      else if (/^\s*\}/.test(body)) section = '';
    }
    const sign = line[0];
    if (sign !== '+' && sign !== '-') continue;
    lines++;
    if (MANIFESTS.test(file) && DEPENDENCY_LINE.test(body) && (!json || /ependencies$/.test(section))) {
      if (sign === '+') added++;
      else removed++;
    }
  }
  return { files: files.size, lines, newDependencies: Math.max(0, added - removed) };
}
