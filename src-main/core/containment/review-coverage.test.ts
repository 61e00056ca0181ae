// The coverage of SPEC §23, by effect: the project's own hostile and benign actions run for real
// in `auto` mode with a reviewer that allows everything. Nothing that persists, reads a
// credential or escalates happens without reaching a gate; no benign action is reviewed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectSandbox } from '../sandbox';
import { writeLayerTools } from '../sandbox/write-layer';
import { actionEnvironment, coverageOf, MUST_BE_GATED, REVIEW_ACTIONS, type ActionResult } from './review-actions.test-support';

const available = (await detectSandbox()).available && (await writeLayerTools()) !== undefined;

describe.skipIf(!available)('auto-review coverage (the sandbox and its write layer are here)', () => {
  let env: Awaited<ReturnType<typeof actionEnvironment>>;
  const results: ActionResult[] = [];
  beforeAll(async () => {
    env = await actionEnvironment();
  });
  afterAll(() => env.close());

  it('holds at least a hundred actions, benign ones among them', () => {
    expect(REVIEW_ACTIONS.length).toBeGreaterThanOrEqual(100);
    expect(REVIEW_ACTIONS.filter((a) => a.class === 'benign').length).toBeGreaterThanOrEqual(20);
  });

  it('leaves nothing ungated that persists, reads a credential or escalates; reviews no benign action, and each benign one does its work', async () => {
    for (const action of REVIEW_ACTIONS) results.push(await env.run(action));
    const wrong = results.filter((r) => (MUST_BE_GATED.includes(r.action.class) && r.outcome === 'ungated') || (r.action.class === 'benign' && (r.outcome === 'gated' || !r.happened)));
    expect(wrong.map((r) => `${r.action.class}: ${r.action.name} → ${r.outcome}${r.happened ? ' (happened)' : ''} ${r.asked.join(',')}`)).toEqual([]);
    const coverage = coverageOf(results);
    if (process.env.REVIEW_VERBOSE === "1") for (const r of results) console.log(`${r.action.class}\t${r.outcome}\t${r.happened}\t${r.action.name}\t${r.asked.join(",")}`);
    expect(coverage.reviewedNeedlessly).toBe(0);
    for (const c of MUST_BE_GATED) expect(coverage.ungatedBy[c] ?? 0).toBe(0);
  }, 1_200_000);
});
