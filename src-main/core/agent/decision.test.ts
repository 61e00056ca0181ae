// The one decision point: who decided each outcome, the one call of a broker (with the run's
// hooks around the wait), and no other place in src-main calling a broker.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ask, decide, type DecisionContext } from './decision';
import { DEFAULT_RULES } from './permissions/rules';
import type { HookPermission } from '../extensions/hooks/call-permission';

const SRC_MAIN = join(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test(-support)?\.tsx?$|\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const context = (over: Partial<DecisionContext> = {}): DecisionContext => ({ threadId: 't', mode: 'ask', rules: DEFAULT_RULES, sandboxAvailable: true, ...over });
const write = { id: 'c', tool: 'write_file', args: { file_path: '/a.txt', content: 'x' } };
const run = { id: 'c', tool: 'execute', args: { command: 'npm test' } };

describe('the decision point', () => {
  it('says who decided: the rules, the mode, the sandbox, a hook', async () => {
    expect(await decide({ id: 'c', tool: 'read_file', args: { file_path: '/a.txt' } }, context())).toMatchObject({ decision: 'allow', decidedBy: 'rule' });
    expect(await decide(write, context())).toMatchObject({ decision: 'ask', decidedBy: 'rule', question: { threadId: 't', toolCallId: 'c', toolName: 'write_file' } });
    expect(await decide(write, context({ mode: 'edit' }))).toMatchObject({ decision: 'allow', decidedBy: 'mode' });
    expect(await decide(run, context({ mode: 'auto' }))).toMatchObject({ decision: 'allow', decidedBy: 'sandbox' });
    expect(await decide(run, context({ mode: 'auto', sandboxAvailable: false }))).toMatchObject({ decision: 'ask' });
    expect(await decide(write, context({ mode: 'plan' }))).toMatchObject({ decision: 'refuse', decidedBy: 'mode' });
    expect(await decide(write, context({ rules: [{ tools: ['write_file'], decision: 'deny' }, ...DEFAULT_RULES] }))).toMatchObject({ decision: 'deny', decidedBy: 'rule' });
    const hook = (decision: 'allow' | 'ask'): HookPermission => ({ decision, reason: 'the hook says so', hook: { command: 'h', file: 'f' } });
    expect(await decide({ ...write, hook: hook('allow') }, context())).toMatchObject({ decision: 'allow', decidedBy: 'hook' });
    expect(await decide({ ...write, hook: hook('ask') }, context({ mode: 'edit' }))).toMatchObject({ decision: 'ask', decidedBy: 'hook' });
    // A hook's allow never beats a protected path.
    expect(await decide({ ...write, args: { file_path: '/.git/config' }, hook: hook('allow') }, context())).toMatchObject({ decision: 'ask', decidedBy: 'rule' });
  });

  it('asks another agent nothing about a protected path: it is refused, in every mode', async () => {
    for (const mode of ['ask', 'edit', 'auto'] as const) {
      expect(await decide({ ...write, args: { file_path: '/.git/hooks/pre-commit' } }, context({ mode, agent: 'Other' }))).toMatchObject({ decision: 'deny', decidedBy: 'rule' });
    }
    expect(await decide(write, context({ agent: 'Other' }))).toMatchObject({ decision: 'ask', question: { agent: 'Other' } });
  });

  it("asks the person through the broker, the run's hooks around the wait", async () => {
    const told: string[] = [];
    const answer = await ask(
      { threadId: 't', toolCallId: 'c', toolName: 'write_file', args: {}, reason: 'r' },
      {
        kind: 'person',
        broker: {
          decide: async () => (told.push('asked'), { type: 'approve', answeredIn: 'terminal' }),
          waiting: { asking: () => void told.push('slot given up'), answered: async () => void told.push('slot taken again') },
        },
      },
      new AbortController().signal,
    );
    expect(answer).toEqual({ decision: { type: 'approve', answeredIn: 'terminal' }, decidedBy: 'person', where: { answeredIn: 'terminal' } });
    expect(told).toEqual(['slot given up', 'asked', 'slot taken again']);
  });

  it('is the one place in src-main that calls a broker', () => {
    const callers: string[] = [];
    for (const file of sourceFiles(SRC_MAIN)) {
      const text = readFileSync(file, 'utf8');
      // `.decide(` of anything but the host's runs and windows (they route an answer, they do not ask for one).
      for (const match of text.matchAll(/([\w?.]*?)\.decide\(/g)) if (!/(runs|windows)\??$/.test(match[1]!)) callers.push(relative(SRC_MAIN, file));
    }
    expect(callers).toEqual(['core/agent/decision.ts']);
  });
});
