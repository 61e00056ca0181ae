// The gate and the stall detector over a stand-in place and grader: states by effect.
import { describe, expect, it } from 'vitest';
import { GoalGate, STALL_REPEATS, type Grade } from './gate';
import type { GoalPlace, StepRun } from './evidence';
import { claimsSuccess } from './evidence';
import { goalSchema, startGoal, type Goal } from './goal';
import { readVerdict } from './grader';
import { readDraft } from './draft';

function place(runs: StepRun[], trees: string[] = []): GoalPlace & { ran: number } {
  const p = {
    ran: 0,
    runStep: async () => runs[Math.min(p.ran++, runs.length - 1)]!,
    tree: async () => trees.shift() ?? 'same',
    diff: async () => ({ diff: '', files: [] }),
  };
  return p;
}
const satisfied: Grade = async () => ({ args: { criteria: [{ id: 'c1', verdict: 'satisfied', reason: 'ok' }] }, usage: { input: 10, output: 2 } });
const goal = (maxRounds = 3): Goal => startGoal({ objective: 'fix it', criteria: ['tests pass'], verify: [{ command: 'npm test', expectedExitCode: 0 }] }, { base: 'base', maxRounds });

describe('the gate', () => {
  it('grants achieved only when the steps pass AND the grader satisfies every criterion', async () => {
    const g = goal();
    const failing = new GoalGate(g, place([{ exitCode: 1, output: 'FAIL' }]), satisfied);
    const first = await failing.evaluate('All tests pass.');
    expect(first.outcome.kind).toBe('revise');
    expect(g.state).toBe('pursuing');
    expect(g.contradictedClaims).toHaveLength(1);
    const passing = new GoalGate(g, place([{ exitCode: 0, output: 'ok' }]), async () => ({ args: { criteria: [{ id: 'c1', verdict: 'needs_revision', reason: 'no' }] }, usage: { input: 1, output: 1 } }));
    expect((await passing.evaluate('Done')).outcome.kind).toBe('revise');
    const both = new GoalGate(g, place([{ exitCode: 0, output: 'ok' }]), satisfied);
    expect((await both.evaluate('Done')).outcome).toMatchObject({ kind: 'end', state: 'achieved' });
    expect(goalSchema.parse(JSON.parse(JSON.stringify(g))).state).toBe('achieved');
  });

  it('ends unmet after the round limit, blocked when a step was refused, unmet at once on a failed criterion', async () => {
    const g = goal(1);
    const gate = new GoalGate(g, place([{ exitCode: 2, output: 'x' }]), satisfied);
    expect((await gate.evaluate('')).outcome.kind).toBe('revise');
    expect((await gate.evaluate('')).outcome).toMatchObject({ kind: 'end', state: 'unmet' });
    const refused = goal();
    await new GoalGate(refused, place([{ exitCode: null, output: '', refused: 'the rules deny it' }]), satisfied).evaluate('');
    expect(refused.state).toBe('blocked');
    const failed = goal();
    await new GoalGate(failed, place([{ exitCode: 1, output: '' }]), async () => ({ args: { criteria: [{ id: 'c1', verdict: 'failed', reason: 'impossible' }] }, usage: { input: 0, output: 0 } })).evaluate('');
    expect(failed.state).toBe('unmet');
  });

  it('a grader answer that does not match the schema satisfies nothing', () => {
    const g = goal();
    expect(readVerdict(g, { criteria: [{ id: 'c1', verdict: 'great' }] })).toHaveProperty('problem');
    expect(readVerdict(g, { criteria: [{ id: 'other', verdict: 'satisfied' }] })).toEqual({ criteria: [expect.objectContaining({ id: 'c1', verdict: 'needs_revision' })] });
  });

  it('stalls on the same failing command on the same tree, the same edit, or acting turns that change nothing', async () => {
    const g = goal();
    const gate = new GoalGate(g, place([], []), satisfied);
    const failing = { name: 'execute', args: { command: 'npm test' }, exitCode: 1, output: 'FAIL' };
    for (let i = 1; i < STALL_REPEATS; i++) expect(await gate.afterStep([failing])).toBeUndefined();
    expect(await gate.afterStep([failing])).toMatchObject({ kind: 'end', state: 'stalled' });

    const edits = goal();
    const editGate = new GoalGate(edits, place([], ['t1', 't2', 't3', 't4']), satisfied);
    const edit = { name: 'edit_file', args: { file_path: '/a', old_string: 'x', new_string: 'y' }, output: '' };
    await editGate.afterStep([edit]);
    await editGate.afterStep([edit]);
    expect((await editGate.afterStep([edit]))?.kind).toBe('end');
    expect(edits.reason).toMatch(/same edit to \/a 3 times/);

    const idle = goal();
    const idleGate = new GoalGate(idle, place([]), satisfied);
    // Reading never counts; acting without a change does (each with another command, so no repeat).
    expect(await idleGate.afterStep([{ name: 'read_file', args: { file_path: '/a' }, output: '' }])).toBeUndefined();
    let out;
    // The first acting step finds a tree other than the base (a change); the 5 after it change nothing.
    for (let i = 0; i < 6; i++) out = await idleGate.afterStep([{ name: 'execute', args: { command: `ls ${i}` }, exitCode: 0, output: '' }]);
    expect(out).toMatchObject({ state: 'stalled' });
    expect(idle.reason).toMatch(/5 turns/);
  });

  it('reads claims and drafts as data', () => {
    expect(claimsSuccess('All tests pass now.')).toBe(true);
    expect(claimsSuccess('The tests still fail; I could not fix it.')).toBe(false);
    expect(readDraft('obj', { criteria: [], verify: [{ command: ' make test ' }, { nope: 1 }] })).toEqual({ objective: 'obj', criteria: ['obj'], verify: [{ command: 'make test', expectedExitCode: 0 }] });
  });
});
