// The execute tool over a sandboxed LocalShellBackend (real bubblewrap): the blocked line
// is the result's last line, after the exit status; `sandbox: false` needs a reason and
// then runs outside. What the model is told of the sandbox: system-parts.agent.test.ts.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalShellBackend } from '../backends/filesystem/local-shell';
import { createSandbox, detectSandbox } from '../sandbox';
import { executeTool } from './execute';
import { ReadGuard } from './read-guard';
import { runTool, toolMap } from './run-tool';

const available = (await detectSandbox()).available;
let root: string;
let project: string;
let call: (args: Record<string, unknown>) => Promise<string>;

beforeEach(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-exec-sbx-')));
  project = join(root, 'project');
  mkdirSync(project);
  const sandbox = await createSandbox({ projectDir: project, dataDir: join(root, 'data') });
  const backend = new LocalShellBackend({ rootDir: project, ...(sandbox ? { sandbox } : {}) });
  const tools = toolMap([executeTool]);
  call = async (args) => (await runTool(tools, 'execute', args, { backend, guard: new ReadGuard(), toolCallId: 'c1' })).text;
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!available)('execute in the sandbox', () => {
  it('ends the result with the blocked line, after the exit status', async () => {
    const target = join(root, 'escape.txt');
    const out = await call({ command: `echo hi; touch ${target}` });
    expect(out).toBe(
      `hi\ntouch: cannot touch '${target}': Read-only file system\n[Command failed with exit code 1]\n[Sandbox blocked a write to ${target} (outside the project folder)]`,
    );
    expect(existsSync(target)).toBe(false);
  });

  it('adds no line when nothing was blocked', async () => {
    expect(await call({ command: 'echo ok > f && cat f' })).toBe('ok\n[Command succeeded with exit code 0]');
  });

  it('sandbox: false requires a reason, then runs outside', async () => {
    const target = join(root, 'outside.txt');
    expect(await call({ command: `touch ${target}`, sandbox: false })).toMatch(/^Error: .*reason/);
    expect(await call({ command: `touch ${target}`, sandbox: 'false', reason: '  ' })).toMatch(/^Error: .*reason/);
    expect(existsSync(target)).toBe(false);
    expect(await call({ command: `touch ${target}`, sandbox: false, reason: 'write the shared cache' })).toBe(
      '\n[Command succeeded with exit code 0]',
    );
    expect(existsSync(target)).toBe(true);
  });
});
