import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalShellBackend } from './local-shell';
import { isProcessAlive } from '../../process/process-tree';
import { isShellBackend } from '../protocol';

let root: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-shell-')));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

async function waitFor(probe: () => boolean, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('LocalShellBackend', () => {
  it('is a shell backend with a local id', () => {
    const backend = new LocalShellBackend({ rootDir: root });
    expect(isShellBackend(backend)).toBe(true);
    expect(backend.id).toMatch(/^local-[0-9a-f]{8}$/);
    expect(new LocalShellBackend({ rootDir: root }).id).not.toBe(backend.id);
    expect(backend.rootDir).toBe(root);
  });

  it('runs commands in the folder and reports exit codes', async () => {
    const backend = new LocalShellBackend({ rootDir: root });
    expect(await backend.execute('pwd')).toEqual({ output: root, exitCode: 0, truncated: false });
    expect(await backend.execute('echo oops >&2; exit 3')).toEqual({ output: 'oops', exitCode: 3, truncated: false });
  });

  it('sees files written through the backend and the other way round', async () => {
    const backend = new LocalShellBackend({ rootDir: root });
    await backend.write('/notes/a.txt', 'hello\n');
    expect((await backend.execute('cat notes/a.txt')).output).toBe('hello');
    await backend.execute('printf "made by shell\\n" > notes/b.txt');
    expect((await backend.read('/notes/b.txt')).fileData?.content).toBe('made by shell');
  });

  it('does not carry cd over to the next command', async () => {
    mkdirSync(join(root, 'sub'));
    const backend = new LocalShellBackend({ rootDir: root });
    expect((await backend.execute('cd sub && pwd')).output).toBe(join(root, 'sub'));
    expect((await backend.execute('pwd')).output).toBe(root);
  });

  it('gives commands a non-interactive environment plus the extra variables', async () => {
    const backend = new LocalShellBackend({ rootDir: root, env: { PROJECT_FLAG: 'on' } });
    const result = await backend.execute('echo "$CI|$GIT_TERMINAL_PROMPT|$PAGER|$PROJECT_FLAG|${ELECTRON_RUN_AS_NODE-unset}"');
    expect(result.output).toBe('1|0|cat|on|unset');
  });

  it('does not hang on commands that read stdin or open a pager', async () => {
    const backend = new LocalShellBackend({ rootDir: root });
    const result = await backend.execute('read x; echo "got:$x"; cat; printf "a\\nb\\n" | $PAGER', { timeoutS: 10 });
    expect(result).toEqual({ output: 'got:\na\nb', exitCode: 0, truncated: false });
  });

  it('uses the default timeout and kills the command tree', async () => {
    const backend = new LocalShellBackend({ rootDir: root, defaultTimeoutS: 1 });
    const result = await backend.execute('echo $$ > pid; sleep 30 & echo $! > bg; wait');
    expect(result.exitCode).toBe(124);
    expect(result.timedOut).toBe(true);
    expect(result.output).toContain('timed out after 1 second');
    for (const file of ['pid', 'bg']) expect(isProcessAlive(Number(readFileSync(join(root, file), 'utf8')))).toBe(false);
  });

  it('stops a command when its signal aborts', async () => {
    const backend = new LocalShellBackend({ rootDir: root });
    const controller = new AbortController();
    const pending = backend.execute('echo $$ > pid; sleep 30', { signal: controller.signal });
    await waitFor(() => {
      try {
        return readFileSync(join(root, 'pid'), 'utf8').trim().length > 0;
      } catch {
        return false;
      }
    });
    controller.abort();
    const result = await pending;
    expect(result.exitCode).toBeNull();
    expect(result.output).toContain('cancelled');
    expect(isProcessAlive(Number(readFileSync(join(root, 'pid'), 'utf8')))).toBe(false);
  });

  it('caps output at maxOutputBytes', async () => {
    const backend = new LocalShellBackend({ rootDir: root, maxOutputBytes: 5000 });
    const result = await backend.execute('seq 1 10000');
    expect(result.truncated).toBe(true);
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(5000);
    expect(result.output).toMatch(/^1\n2\n[\s\S]*bytes of output truncated[\s\S]*\n10000$/);
  });

  it('streams raw output to onData', async () => {
    const backend = new LocalShellBackend({ rootDir: root });
    const direct: string[] = [];
    const result = await backend.execute(`printf '\\033[32mgreen\\033[0m\\n'`, { onData: (chunk) => direct.push(chunk) });
    expect(result.output).toBe('green');
    expect(direct.join('')).toContain('\x1b[32mgreen\x1b[0m');
  });

  it('reports a folder that no longer exists instead of hanging', async () => {
    const gone = join(root, 'gone');
    mkdirSync(gone);
    const backend = new LocalShellBackend({ rootDir: gone });
    rmSync(gone, { recursive: true });
    const result = await backend.execute('echo hi', { timeoutS: 10 });
    expect(result.exitCode).not.toBe(0);
    expect(result.timedOut).toBeUndefined();
  });
});
