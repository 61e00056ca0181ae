// The status line execute adds to a command's output: one, whatever the backend said.
import { describe, expect, it } from 'vitest';
import type { ExecuteResult, ShellBackend } from '../backends/protocol';
import { executeTool } from './execute';
import { ReadGuard } from './read-guard';

function backendReturning(result: ExecuteResult): ShellBackend {
  return { id: 'fake', execute: async () => result } as unknown as ShellBackend;
}

async function run(result: ExecuteResult): Promise<string> {
  const out = await executeTool.run({ command: 'sleep 100' }, { backend: backendReturning(result), guard: new ReadGuard(), toolCallId: 'c' });
  return out.text;
}

describe('execute status line', () => {
  it('a stopped command says it was cancelled once', async () => {
    const text = await run({ output: 'started\n[Command was cancelled and killed]', exitCode: null, truncated: false });
    expect(text).toBe('started\n[Command was cancelled and killed]');
    expect(text.match(/cancelled/g)).toHaveLength(1);
    expect(await run({ output: '[Command was cancelled before it started]', exitCode: null, truncated: false })).toBe('[Command was cancelled before it started]');
  });

  it('a cancelled command whose backend said nothing gets the line', async () => {
    expect(await run({ output: 'partial', exitCode: null, truncated: false })).toBe('partial\n[Command was cancelled]');
  });

  it('exit codes and the sandbox line as before', async () => {
    expect(await run({ output: 'ok\n', exitCode: 0, truncated: false })).toBe('ok\n[Command succeeded with exit code 0]');
    expect(await run({ output: 'no\n[Sandbox blocked a write to /etc]', exitCode: 1, truncated: false, sandboxBlocked: '[Sandbox blocked a write to /etc]' })).toBe(
      'no\n[Command failed with exit code 1]\n[Sandbox blocked a write to /etc]',
    );
  });
});
