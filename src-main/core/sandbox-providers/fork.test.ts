// A provider's fork (SPEC §21: candidates fork from one set-up sandbox), through each real SDK
// against its stand-in: the forks hold the source's files and live apart from it, and a fork
// the service refuses (out of quota) or of a sandbox that is not Deepdesk's leaves nothing made.

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SANDBOX_PROVIDER_NAMES, SANDBOX_PROVIDER_TABLE } from '../process/sandbox-provider-table';
import { SandboxProviderError, type ProviderSandbox, type SandboxProvider, type SandboxSpec } from './provider';
import { openSandboxProvider } from './registry';
import { startStandin } from './testing/standins';
import type { ProviderStandin } from './testing/standin';

const FORKING = SANDBOX_PROVIDER_NAMES.filter((name) => SANDBOX_PROVIDER_TABLE[name].capabilities.fork);
const SPEC: SandboxSpec = { labels: { deepdesk: '1', worktree: 'fork-test' }, idleTimeoutMin: 10 };
const text = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? []).toString('utf8');

let standin: ProviderStandin | undefined;

async function opened(provider: SandboxProvider): Promise<{ source: ProviderSandbox; file: string }> {
  const source = await provider.create(SPEC);
  const file = `${source.workdir}/notes.txt`;
  const [up] = await source.upload([{ path: file, content: Buffer.from('from the set-up\n') }]);
  expect(up?.error).toBeUndefined();
  return { source, file };
}

describe.each(FORKING)('%s fork', (name) => {
  let provider: SandboxProvider;
  beforeAll(async () => {
    standin = await startStandin(name);
    // Modal's SDK reads its server from the process's environment only (once, when it loads).
    for (const [k, v] of Object.entries(standin.env)) vi.stubEnv(k, v);
    provider = await openSandboxProvider(name, { env: { ...standin.env } });
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await standin?.close();
    standin = undefined;
  });

  it('makes running sandboxes with the source’s files, each apart from the source and from each other', async () => {
    const { source, file } = await opened(provider);
    const uploadsBefore = standin!.uploads.length;
    const forks = await provider.fork!(source.id, 2, SPEC);
    expect(forks).toHaveLength(2);
    expect(new Set([source.id, ...forks.map((f) => f.id)]).size).toBe(3);
    expect(standin!.forks.slice(-2).sort()).toEqual(forks.map((f) => f.id).sort());
    // No file went up for them: the files came with the fork.
    expect(standin!.uploads.length).toBe(uploadsBefore);
    for (const [i, fork] of forks.entries()) {
      const [got] = await fork.download([file]);
      expect(text(got?.content)).toBe('from the set-up\n');
      const ran = await fork.execute(`printf 'fork ${i}\\n' > notes.txt && cat notes.txt`, { timeoutMs: 30_000 });
      expect(ran.output).toContain(`fork ${i}`);
    }
    expect(text((await source.download([file]))[0]?.content)).toBe('from the set-up\n');
    expect(text((await forks[0]!.download([file]))[0]?.content)).toBe('fork 0\n');
    // Each fork is Deepdesk's: listed, and found again by id as `--sandbox-id` finds one.
    const listed = new Set((await provider.list()).map((s) => s.id));
    for (const fork of forks) expect(listed.has(fork.id)).toBe(true);
    const again = await provider.attach(forks[1]!.id);
    expect(text((await again.download([file]))[0]?.content)).toBe('fork 1\n');
  }, 120_000);

  it('a fork the service refuses leaves no fork behind, and says why', async () => {
    const { source } = await opened(provider);
    const before = [...standin!.boxes.keys()].sort();
    standin!.fail('quota');
    const err = await provider.fork!(source.id, 2, SPEC).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxProviderError);
    expect((err as SandboxProviderError).reason).toBe('quota');
    standin!.fail(null);
    expect([...standin!.boxes.keys()].sort()).toEqual(before);
  }, 120_000);

  it('refuses to fork a sandbox Deepdesk did not make, before anything is made', async () => {
    const { source } = await opened(provider);
    const before = [...standin!.boxes.keys()].sort();
    const forksBefore = standin!.forks.length;
    standin!.relabel(source.id, { owner: 'someone-else' });
    const err = await provider.fork!(source.id, 1, SPEC).catch((e: unknown) => e);
    expect((err as SandboxProviderError).reason).toBe('not_deepdesk');
    expect(standin!.forks.length).toBe(forksBefore);
    expect([...standin!.boxes.keys()].sort()).toEqual(before);
  }, 120_000);
});
