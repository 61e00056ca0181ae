// Approval modes through the real agent loop (scripted model server, real folder and ptys).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptStep } from '../models/testing/scripted-server';
import { createHarness, textOf, toolMessages, type Harness } from './agent-harness.test-support';
import { DEFAULT_RULES } from './permissions/rules';

let h: Harness | undefined;
afterEach(async () => {
  await h?.dispose();
  h = undefined;
});

const PLAN_ERROR = 'Error: plan mode is read-only; ask the user to switch modes to make changes';
const results = (request: RecordedRequest): string[] => toolMessages(request).map((m) => textOf(m.content));

const changesAndCommand: ScriptStep[] = [
  {
    toolCalls: [
      { name: 'write_file', args: { file_path: '/new.txt', content: 'hello\n' } },
      { name: 'execute', args: { command: 'echo ran > ran.txt; echo ran-$((2*3))' } },
      { name: 'ls', args: { path: '/' } },
    ],
  },
  { text: 'done' },
];

describe('approval modes in the agent loop', () => {
  it('plan: writes and commands are refused with the exact message, without asking; reads run; the prompt says so', async () => {
    h = await createHarness({ rules: DEFAULT_RULES, mode: 'plan', sandboxAvailable: true, script: changesAndCommand });
    await h.run('change things');
    expect(h.approvals).toHaveLength(0);
    const [write, exec, ls] = results(h.server.requests[1]!);
    expect(write).toBe(PLAN_ERROR);
    expect(exec).toBe(PLAN_ERROR);
    expect(ls).toContain('/memories/ (directory)');
    expect(existsSync(join(h.ws.folder, 'new.txt'))).toBe(false);
    expect(existsSync(join(h.ws.folder, 'ran.txt'))).toBe(false);
    expect(String(h.server.requests[0]!.messages[0]!.content)).toContain('## Plan mode');
  });

  it('ask: the write and the command both ask', async () => {
    h = await createHarness({ rules: DEFAULT_RULES, mode: 'ask', sandboxAvailable: true, script: changesAndCommand });
    await h.run('change things');
    expect(h.approvals.map((a) => a.toolName).sort()).toEqual(['execute', 'write_file']);
    expect(String(h.server.requests[0]!.messages[0]!.content)).not.toContain('## Plan mode');
  });

  it('edit: the write runs, the command asks, a protected path asks', async () => {
    h = await createHarness({
      rules: DEFAULT_RULES,
      mode: 'edit',
      sandboxAvailable: true,
      script: [{ toolCalls: [...(changesAndCommand[0] as { toolCalls: [] }).toolCalls, { name: 'write_file', args: { file_path: '/.git/config', content: 'x' } }] }, { text: 'done' }],
    });
    mkdirSync(join(h.ws.folder, '.git'));
    await h.run('change things');
    expect(readFileSync(join(h.ws.folder, 'new.txt'), 'utf8')).toBe('hello\n');
    expect(h.approvals.map((a) => a.toolName).sort()).toEqual(['execute', 'write_file']);
    expect(h.approvals.find((a) => a.toolName === 'write_file')!.args.file_path).toBe('/.git/config');
    expect(existsSync(join(h.ws.folder, 'ran.txt'))).toBe(false);
    expect(existsSync(join(h.ws.folder, '.git/config'))).toBe(false);
  });

  it('auto with a sandbox: writes and commands run without asking; `sandbox: false` asks and shows the reason', async () => {
    h = await createHarness({
      rules: DEFAULT_RULES,
      mode: 'auto',
      sandboxAvailable: true,
      script: [
        ...changesAndCommand.slice(0, 1),
        { toolCalls: [{ name: 'execute', args: { command: 'echo outside > outside.txt', sandbox: false, reason: 'needs to reach the registry' } }] },
        { text: 'done' },
      ],
    });
    await h.run('change things');
    expect(readFileSync(join(h.ws.folder, 'new.txt'), 'utf8')).toBe('hello\n');
    expect(readFileSync(join(h.ws.folder, 'ran.txt'), 'utf8')).toBe('ran\n');
    expect(results(h.server.requests[1]!)[1]).toContain('ran-6');
    expect(h.approvals).toHaveLength(1);
    expect(h.approvals[0]).toMatchObject({ toolName: 'execute', outsideSandbox: { reason: 'needs to reach the registry' } });
    expect(existsSync(join(h.ws.folder, 'outside.txt'))).toBe(false);
  });

  it('auto without a sandbox: commands ask (writes still run)', async () => {
    h = await createHarness({ rules: DEFAULT_RULES, mode: 'auto', sandboxAvailable: false, script: changesAndCommand });
    await h.run('change things');
    expect(h.approvals.map((a) => a.toolName)).toEqual(['execute']);
  });

  it('a deny rule beats auto', async () => {
    h = await createHarness({ rules: [{ tools: ['execute'], commands: ['echo'], decision: 'deny' }, ...DEFAULT_RULES], mode: 'auto', sandboxAvailable: true, script: changesAndCommand });
    await h.run('change things');
    expect(results(h.server.requests[1]!)[1]).toMatch(/^Error: this execute call is not allowed/);
    expect(existsSync(join(h.ws.folder, 'ran.txt'))).toBe(false);
  });
});

describe("writes into git's surface outside .git always ask (nothing the agent leaves behind runs later)", () => {
  it('auto: a hooksPath folder, an included config, a program the config names and a git-shaped folder ask; a plain file does not', async () => {
    h = await createHarness({
      rules: DEFAULT_RULES,
      mode: 'auto',
      sandboxAvailable: true,
      script: [
        {
          toolCalls: [
            { name: 'write_file', args: { file_path: '/.githooks/pre-commit', content: '#!/bin/sh\ntouch pwned\n' } },
            { name: 'write_file', args: { file_path: '/team.gitconfig', content: '[core]\n\tfsmonitor = ./x\n' } },
            { name: 'write_file', args: { file_path: '/watch.sh', content: '#!/bin/sh\n' } },
            { name: 'write_file', args: { file_path: '/gd/config', content: '[core]\n\tfsmonitor = ./x\n' } },
            { name: 'write_file', args: { file_path: '/gd2/HEAD', content: 'ref: refs/heads/main\n' } },
            { name: 'write_file', args: { file_path: '/plain.txt', content: 'fine\n' } },
          ],
        },
        { text: 'done' },
      ],
    });
    const folder = h.ws.folder;
    for (const dir of ['.git/objects', '.git/refs', '.githooks', 'gd/objects', 'gd/refs', 'gd2/objects', 'gd2/refs']) mkdirSync(join(folder, dir), { recursive: true });
    writeFileSync(join(folder, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(folder, 'gd', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(folder, '.git', 'config'), '[core]\n\thooksPath = .githooks\n\tfsmonitor = ./watch.sh\n[include]\n\tpath = ../team.gitconfig\n');
    await h.run('change things');
    expect(h.approvals.map((a) => String(a.args.file_path)).sort()).toEqual(['/.githooks/pre-commit', '/gd/config', '/gd2/HEAD', '/team.gitconfig', '/watch.sh']);
    for (const a of h.approvals) expect(a.reason).toMatch(/always ask/);
    expect(readFileSync(join(folder, 'plain.txt'), 'utf8')).toBe('fine\n');
  });
});
