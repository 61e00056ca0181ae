// The ranking of candidates by evidence (SPEC §21), with the roles shuffled over many trials: the
// one whose verify steps pass is first every time, the one that claimed success while a step
// failed is never above it, and the smaller change and the cost break ties in that order.
import { describe, expect, it } from 'vitest';
import { diffSize, rankCandidates, type CandidateFacts } from './rank';

const pass = [{ passed: true }, { passed: true }];
const fail = [{ passed: true }, { passed: false }];
const small = { files: 1, lines: 2, newDependencies: 0 };

function candidate(over: Partial<CandidateFacts>): Omit<CandidateFacts, 'index' | 'threadId'> {
  return { state: 'unmet', criteria: [{ verdict: 'needs_revision' }], contradictedClaims: 0, change: small, costUsd: 0.01, ...over };
}

/** A seeded shuffle, so a failing trial can be reproduced. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function place(roles: Record<string, Omit<CandidateFacts, 'index' | 'threadId'>>, seed: number): CandidateFacts[] {
  return shuffled(Object.entries(roles), seed).map(([threadId, facts], index) => ({ ...facts, threadId, index }));
}

describe('rankCandidates', () => {
  it('the passing candidate is first in every shuffled trial; the contradicted claimer is never first, and always below it — even when the claimer is cheaper, smaller and its grader was fooled', () => {
    const roles = {
      passer: candidate({ state: 'achieved', steps: pass, criteria: [{ verdict: 'satisfied' }], change: { files: 3, lines: 80, newDependencies: 1 }, costUsd: 0.5 }),
      claimer: candidate({ state: 'unmet', steps: fail, criteria: [{ verdict: 'satisfied' }], contradictedClaims: 3, change: { files: 1, lines: 1, newDependencies: 0 }, costUsd: 0.001 }),
      honestFail: candidate({ state: 'unmet', steps: fail, change: small }),
      limited: candidate({ state: 'budget-limited', change: { files: 0, lines: 0, newDependencies: 0 }, costUsd: 0 }),
    };
    for (let seed = 1; seed <= 200; seed++) {
      const ranked = rankCandidates(place(roles, seed)).map((r) => r.candidate.threadId);
      expect(ranked[0]).toBe('passer');
      expect(ranked.indexOf('claimer')).toBeGreaterThan(ranked.indexOf('passer'));
      expect(ranked.indexOf('claimer')).toBeGreaterThan(ranked.indexOf('honestFail'));
    }
  });

  it('among passing ones: the grader’s criteria, then fewer files, then fewer lines, then fewer new dependencies, then the cost', () => {
    const roles = {
      a: candidate({ steps: pass, criteria: [{ verdict: 'satisfied' }, { verdict: 'satisfied' }], change: { files: 9, lines: 900, newDependencies: 3 }, costUsd: 9 }),
      b: candidate({ steps: pass, criteria: [{ verdict: 'satisfied' }, { verdict: 'needs_revision' }], change: { files: 1, lines: 1, newDependencies: 0 }, costUsd: 0.1 }),
      c: candidate({ steps: pass, criteria: [{ verdict: 'satisfied' }, { verdict: 'needs_revision' }], change: { files: 2, lines: 1, newDependencies: 0 }, costUsd: 0.1 }),
      d: candidate({ steps: pass, criteria: [{ verdict: 'satisfied' }, { verdict: 'needs_revision' }], change: { files: 2, lines: 5, newDependencies: 0 }, costUsd: 0.1 }),
      e: candidate({ steps: pass, criteria: [{ verdict: 'satisfied' }, { verdict: 'needs_revision' }], change: { files: 2, lines: 5, newDependencies: 1 }, costUsd: 0.1 }),
      f: candidate({ steps: pass, criteria: [{ verdict: 'satisfied' }, { verdict: 'needs_revision' }], change: { files: 2, lines: 5, newDependencies: 1 }, costUsd: 0.2 }),
      g: candidate({ steps: pass, criteria: [{ verdict: 'satisfied' }, { verdict: 'needs_revision' }], change: { files: 2, lines: 5, newDependencies: 1 }, costUsd: null }),
    };
    for (let seed = 1; seed <= 50; seed++) {
      expect(rankCandidates(place(roles, seed)).map((r) => r.candidate.threadId)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    }
  });

  it('no evidence (the gate never ran) is not passing; more passing steps rank above fewer', () => {
    const ranked = rankCandidates([
      { ...candidate({ state: 'budget-limited' }), index: 0, threadId: 'none' },
      { ...candidate({ steps: [{ passed: false }, { passed: false }] }), index: 1, threadId: 'zero' },
      { ...candidate({ steps: fail }), index: 2, threadId: 'half' },
    ]);
    expect(ranked.map((r) => [r.rank, r.candidate.threadId, r.keys.verifyPassed])).toEqual([
      [1, 'half', false],
      [2, 'none', false],
      [3, 'zero', false],
    ]);
  });
});

describe('diffSize', () => {
  it('counts files, lines added and removed, and entries added to a dependency list (not scripts)', () => {
    const diff = [
      'diff --git a/sum.js b/sum.js',
      'index 1..2 100644',
      '--- a/sum.js',
      '+++ b/sum.js',
      '@@ -1 +1 @@',
      '-module.exports = (a, b) => a - b;',
      '+module.exports = (a, b) => a + b;',
      'diff --git a/package.json b/package.json',
      '--- a/package.json',
      '+++ b/package.json',
      '@@ -1,6 +1,8 @@',
      ' {',
      '   "scripts": {',
      '+    "test": "node check.js",',
      '   },',
      '   "dependencies": {',
      '+    "left-pad": "^1.3.0",',
      '+    "lodash": "^4.17.21"',
      '   }',
      ' }',
    ].join('\n');
    expect(diffSize(diff)).toEqual({ files: 2, lines: 5, newDependencies: 2 });
    expect(diffSize('')).toEqual({ files: 0, lines: 0, newDependencies: 0 });
  });
});
