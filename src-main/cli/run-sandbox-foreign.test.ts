// Issue 61 item 7 (Trust VII), through the built CLI, for every provider of THE table against its
// stand-in: a sandbox of the same account that Deepdesk did not make (no deepdesk label, as
// another tool would make one) is neither worked in by `run --sandbox-id ID` (the agent's
// marker command never runs there) nor stopped or deleted by `deepdesk sandboxes stop|rm ID`:
// each says it is not Deepdesk's sandbox, and the sandbox is still there, running.

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SANDBOX_PROVIDER_TABLE } from '../core/process/sandbox-provider-table';
import { DEEPDESK_LABEL, SANDBOX_PROVIDER_NAMES, type SandboxProviderName } from '../core/sandbox-providers/provider';
import { openSandboxProvider } from '../core/sandbox-providers/registry';
import type { ProviderStandin } from '../core/sandbox-providers/testing/standin';
import { startStandin } from '../core/sandbox-providers/testing/standins';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-sandbox-foreign');
let standin: ProviderStandin | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await standin?.close();
  standin = undefined;
});

const NO_PROVIDER_KEYS = Object.fromEntries(SANDBOX_PROVIDER_NAMES.flatMap((n) => SANDBOX_PROVIDER_TABLE[n].keys.map((k) => [k, ''])));
const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=Pat', '-c', 'user.email=pat@example.com', ...args], { cwd: t.folder, encoding: 'utf8' });

describe.each(SANDBOX_PROVIDER_NAMES.map((name) => [name] as [SandboxProviderName]))('%s: a sandbox Deepdesk did not make', (name) => {
  it('is not worked in by run --sandbox-id, nor stopped or deleted by sandboxes stop|rm', async () => {
    standin = await startStandin(name);
    for (const [k, v] of Object.entries(standin.env)) vi.stubEnv(k, v);
    const env = { ...NO_PROVIDER_KEYS, ...standin.env };
    const provider = await openSandboxProvider(name, { env: { ...standin.env } });
    // Another tool's sandbox on the same account: made, then labelled as that tool labels its own.
    const made = await provider.create({ labels: {} });
    const { id, workdir } = made;
    await made.close();
    standin.relabel(id, { owner: 'another-tool' });
    const box = standin.boxes.get(id)!;
    const marker = `${workdir}/deepdesk-was-here`;

    git('init', '-q');
    writeFileSync(join(t.folder, 'a.txt'), 'alpha\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'base');
    t.server.push({ toolCalls: [{ name: 'execute', args: { command: `touch ${marker}` } }] }, { text: 'worked in it' });
    const run = await t.deepdesk(
      ['run', '--sandbox', name, '--sandbox-id', id, '--folder', t.folder, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, '--approve', 'auto', 'work there'],
      env,
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("not Deepdesk's sandbox: it was not made by Deepdesk");
    expect(run.stderr).toContain(id);
    expect(run.stdout).not.toContain('worked in it');
    expect(box.stat(marker)).toBeUndefined();
    expect(box.stat(`${workdir}/a.txt`)).toBeUndefined(); // the folder did not go up into it either
    // Refused first: no worktree, branch or record was made for it.
    expect(git('branch', '--list', 'deepdesk/*').trim()).toBe('');
    expect(existsSync(join(t.dataDir, 'worktrees')) ? readdirSync(join(t.dataDir, 'worktrees')) : []).toEqual([]);

    for (const sub of ['stop', 'rm']) {
      const done = await t.deepdesk(['sandboxes', sub, id, '--sandbox', name, '--data-dir', t.dataDir], env);
      expect({ sub, code: done.code }).toEqual({ sub, code: 1 });
      expect(done.stderr).toContain("not Deepdesk's sandbox: it was not made by Deepdesk");
      expect(done.stderr).toContain(id);
    }

    // Still there and still running: listed as running once it carries Deepdesk's label.
    expect(standin.boxes.has(id)).toBe(true);
    standin.relabel(id, { [DEEPDESK_LABEL.key]: DEEPDESK_LABEL.value });
    expect((await provider.list()).find((s) => s.id === id)?.state).toBe('running');
  });
});
