// TRACEPARENT (SPEC §17): the execute tool gives a command the traceparent of its tool call's
// span, by effect on a real LocalShellBackend (and through the real sandbox where there is
// one); a malformed value never reaches the command.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalShellBackend } from '../backends/filesystem/local-shell';
import { isTraceparent, traceparentEnv } from '../process/traceparent';
import { createSandbox, detectSandbox } from '../sandbox';
import { executeTool } from './execute';
import { ReadGuard } from './read-guard';
import { runTool, toolMap } from './run-tool';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const PRINT = 'printf "[%s]" "$TRACEPARENT"';
const sandboxAvailable = (await detectSandbox()).available;
/** What a command sees when it is given none: whatever this test process was started with. */
const inherited = process.env.TRACEPARENT ?? '';

let root: string;
let project: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-exec-trace-')));
  project = join(root, 'project');
  mkdirSync(project);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

async function printed(backend: LocalShellBackend, traceparent: string | undefined, args: Record<string, unknown> = {}): Promise<string> {
  const out = await runTool(toolMap([executeTool]), 'execute', { command: PRINT, ...args }, {
    backend,
    guard: new ReadGuard(),
    toolCallId: 'c1',
    ...(traceparent !== undefined ? { traceparent } : {}),
  });
  expect(out.text).toMatch(/\[Command succeeded with exit code 0\]$/);
  return /^\[(.*)\]/.exec(out.text)?.[1] ?? '';
}

describe('execute passes TRACEPARENT', () => {
  it('gives the command the tool call’s traceparent', async () => {
    const backend = new LocalShellBackend({ rootDir: project });
    expect(await printed(backend, TRACEPARENT)).toBe(TRACEPARENT);
    expect(await printed(backend, undefined)).toBe(inherited);
  });

  it('passes no malformed value', async () => {
    const backend = new LocalShellBackend({ rootDir: project });
    for (const bad of [
      'not-a-traceparent',
      TRACEPARENT.toUpperCase(),
      `${TRACEPARENT}; touch pwned`,
      `${TRACEPARENT}\nX=1`,
      'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      '',
    ]) {
      expect(await printed(backend, bad), JSON.stringify(bad)).toBe(inherited);
    }
  });

  it.skipIf(!sandboxAvailable)('reaches a sandboxed command too, and one run outside the sandbox', async () => {
    const sandbox = await createSandbox({ projectDir: project, dataDir: join(root, 'data') });
    const backend = new LocalShellBackend({ rootDir: project, ...(sandbox ? { sandbox } : {}) });
    expect(await printed(backend, TRACEPARENT)).toBe(TRACEPARENT);
    expect(await printed(backend, TRACEPARENT, { sandbox: false, reason: 'the test says so' })).toBe(TRACEPARENT);
  });
});

describe('isTraceparent', () => {
  it('takes the W3C form only', () => {
    expect(isTraceparent(TRACEPARENT)).toBe(true);
    expect(isTraceparent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00')).toBe(true);
    expect(isTraceparent(undefined)).toBe(false);
    expect(isTraceparent(`${TRACEPARENT}-extra`)).toBe(false);
    expect(traceparentEnv(TRACEPARENT)).toEqual({ TRACEPARENT });
    expect(traceparentEnv('$(id)')).toEqual({});
  });
});
