// `deepdesk run --print-request` (SPEC §20): the request a run would send first, each part with
// its tokens, without calling a model. Its total for "hi" in a fresh git folder with an empty
// data folder stays within the reference's (deepagents, captured and counted the same way);
// it is what the run really sends; a feature's text is there only where the feature is.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { measureReferenceRequest, REFERENCE_REQUEST, wireRequestCost } from '../core/agent/testing/reference-request';
import type { RequestPartCost } from '../core/agent/request-budget';
import { detectSandbox } from '../core/sandbox';
import { useCliTestEnv } from './cli-harness.test-support';

interface Printed {
  model: string;
  contextWindow: number;
  parts: Array<RequestPartCost & { text: string }>;
  base: number;
  total: number;
}

const BASE_TOOLS = ['ls', 'read_file', 'write_file', 'edit_file', 'glob', 'grep', 'execute', 'write_todos', 'task'];
const sandboxed = (await detectSandbox()).available;

const cli = useCliTestEnv('deepdesk-print-request');
let home: string;

beforeEach(() => {
  // A fresh git folder, and a home of no skills or settings of the machine's person.
  execFileSync('git', ['init', '-q'], { cwd: cli.folder });
  home = mkdtempSync(join(tmpdir(), 'deepdesk-print-request-home-'));
});

afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

const env = (): NodeJS.ProcessEnv => ({ HOME: home, DEEPDESK_MODEL: '' });

async function printRequest(args: string[]): Promise<Printed> {
  const result = await cli.deepdesk(['run', '--print-request', '--json', '--folder', cli.folder, '--data-dir', cli.dataDir, ...args], env());
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Printed;
}

const names = (printed: Printed, kind: RequestPartCost['kind']): string[] => printed.parts.filter((p) => p.kind === kind).map((p) => p.name);
const part = (printed: Printed, name: string) => printed.parts.find((p) => p.name === name);

describe('deepdesk run --print-request', () => {
  it("sends no more for 'hi' in a fresh folder than the reference does, counted the same way", async () => {
    const printed = await printRequest([REFERENCE_REQUEST.prompt]);
    expect(printed.model).toBe('none');
    expect(names(printed, 'system')).toEqual(['base', ...(sandboxed ? ['sandbox'] : []), 'memory']);
    expect(names(printed, 'tool')).toEqual(BASE_TOOLS);
    expect(printed.total, JSON.stringify(printed.parts.map(({ text: _text, ...p }) => p))).toBeLessThanOrEqual(REFERENCE_REQUEST.total);
    expect(printed.base).toBeLessThanOrEqual(REFERENCE_REQUEST.base);
    expect(printed.parts.reduce((n, p) => n + p.tokens, 0)).toBe(printed.total);
  });

  it('the recorded reference figure is what deepagents sends first', async () => {
    const measured = await measureReferenceRequest();
    expect(measured.version).toBe(REFERENCE_REQUEST.version);
    expect(measured.cost.parts.filter((p) => p.kind === 'tool').map((p) => p.name)).toEqual(REFERENCE_REQUEST.tools);
    expect({ base: measured.cost.base, total: measured.cost.total }).toEqual({ base: REFERENCE_REQUEST.base, total: REFERENCE_REQUEST.total });
  });

  it('prints what the run sends, without calling the model', async () => {
    const model = ['--model', 'openai-compatible:scripted-model', '--base-url', cli.server.url];
    const printed = await printRequest([...model, 'hi']);
    expect(cli.server.requests).toHaveLength(0);
    cli.server.push({ text: 'Hello.' });
    const run = await cli.deepdesk(['run', '--folder', cli.folder, '--data-dir', cli.dataDir, '--thread', 'thread-1', ...model, 'hi'], env());
    expect(run.code, run.stderr).toBe(0);
    const sent = cli.server.requests[0]!;
    expect(sent.messages[0]).toMatchObject({ role: 'system', content: printed.parts.filter((p) => p.kind === 'system').map((p) => p.text).join('\n\n') });
    expect(sent.tools!.map((t) => `${t.function.description}\n${JSON.stringify(t.function.parameters)}`)).toEqual(printed.parts.filter((p) => p.kind === 'tool').map((p) => p.text));
    expect(wireRequestCost(sent).total).toBe(printed.total);

    // On a thread's history: the request of its next run.
    const next = await printRequest([...model, '--thread', 'thread-1', 'again']);
    expect(names(next, 'messages')).toEqual(['3 messages']);
    expect(next.base).toBe(printed.base);
    cli.server.push({ text: 'Hello again.' });
    const again = await cli.deepdesk(['run', '--folder', cli.folder, '--data-dir', cli.dataDir, '--thread', 'thread-1', ...model, 'again'], env());
    expect(again.code, again.stderr).toBe(0);
    expect(cli.server.requests[1]!.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  });

  it('shows each part, its tokens and the total as text; without a prompt, the base request alone', async () => {
    const result = await cli.deepdesk(['run', '--print-request', '--folder', cli.folder, '--data-dir', cli.dataDir], env());
    expect(result.code, result.stderr).toBe(0);
    const printed = await printRequest([]);
    expect(names(printed, 'messages')).toEqual([]);
    expect(printed.base).toBe(printed.total);
    expect(result.stdout).toContain(`── system · base · ${part(printed, 'base')!.tokens} tokens\nYou are Deepdesk`);
    expect(result.stdout).toContain(`── tool · execute · ${part(printed, 'execute')!.tokens} tokens\nRun a bash command`);
    expect(result.stdout).toMatch(new RegExp(`\\ntotal +${printed.total.toLocaleString('en-US')}\\n$`));
  });

  it('adds the text of AGENTS.md, a skill and a mode only where they are, each as a part of its own', async () => {
    const bare = await printRequest(['hi']);
    for (const name of ['memory file /AGENTS.md', 'skills', 'mode']) expect(part(bare, name)).toBeUndefined();

    writeFileSync(join(cli.folder, 'AGENTS.md'), 'Run make check before committing.\n');
    const withAgents = await printRequest(['hi']);
    const agents = part(withAgents, 'memory file /AGENTS.md')!;
    expect(agents.text).toBe('## Project instructions (/AGENTS.md)\nRun make check before committing.');

    mkdirSync(join(cli.dataDir, 'skills', 'pdf'), { recursive: true });
    writeFileSync(join(cli.dataDir, 'skills', 'pdf', 'SKILL.md'), '---\nname: pdf\ndescription: Read and fill PDF forms.\n---\n# PDF\n');
    const withSkill = await printRequest(['hi']);
    expect(part(withSkill, 'skills')!.text).toContain('- pdf: Read and fill PDF forms. (read /skills/pdf/SKILL.md)');

    const planning = await printRequest(['--mode', 'plan', 'hi']);
    expect(part(planning, 'mode')!.text).toMatch(/^## Plan mode\n/);

    // Each costs its own part's tokens (and the blank line before it), nothing elsewhere.
    const added = (before: Printed, after: Printed, name: string) => after.total - before.total - part(after, name)!.tokens;
    expect(added(bare, withAgents, 'memory file /AGENTS.md')).toBeLessThanOrEqual(1);
    expect(added(withAgents, withSkill, 'skills')).toBeLessThanOrEqual(1);
    expect(added(withSkill, planning, 'mode')).toBeLessThanOrEqual(1);
    expect(names(planning, 'tool')).toEqual(BASE_TOOLS);
  });

  it('refuses what starts no run', async () => {
    const result = await cli.deepdesk(['run', '--print-request', '--detach', '--folder', cli.folder, 'hi'], env());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--print-request shows the request and starts no run');
  });
});
