// Only Deepdesk's sandboxes are touched by id (issue 61, Trust VII): for every provider of THE
// table, over its adapter and the provider's own SDK against its local stand-in, a sandbox of the
// same account that lacks Deepdesk's label (as another tool would make one) is refused by
// `attach`, `stop` and `remove` — and is still there and still running afterwards — while
// Deepdesk's own sandbox beside it is attached, stopped and removed as before.

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEEPDESK_LABEL, SANDBOX_PROVIDER_NAMES, SandboxProviderError, type SandboxProvider, type SandboxProviderName } from './provider';
import { openSandboxProvider } from './registry';
import type { ProviderStandin } from './testing/standin';
import { startStandin } from './testing/standins';

async function refusal(work: Promise<unknown>): Promise<SandboxProviderError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SandboxProviderError);
  return err as SandboxProviderError;
}

describe.each(SANDBOX_PROVIDER_NAMES.map((name) => [name] as [SandboxProviderName]))('%s: a sandbox Deepdesk did not make', (name) => {
  let standin: ProviderStandin;
  let provider: SandboxProvider;

  beforeAll(async () => {
    standin = await startStandin(name);
    // Some SDKs read their endpoint from the process's environment only.
    for (const [k, v] of Object.entries(standin.env)) vi.stubEnv(k, v);
    provider = await openSandboxProvider(name, { env: { ...standin.env } });
  });

  afterAll(async () => {
    vi.unstubAllEnvs();
    await standin?.close();
  });

  /** A sandbox of the account without Deepdesk's label: made, then labelled as another tool labels its own. */
  async function foreignSandbox(): Promise<string> {
    const sb = await provider.create({ labels: {} });
    await sb.close();
    standin.relabel(sb.id, { owner: 'another-tool' });
    return sb.id;
  }

  /** The sandbox's state as the provider lists it once it carries Deepdesk's label again (undefined: not listed, i.e. stopped for good or gone). */
  async function stateOf(id: string): Promise<string | undefined> {
    standin.relabel(id, { [DEEPDESK_LABEL.key]: DEEPDESK_LABEL.value });
    try {
      return (await provider.list()).find((s) => s.id === id)?.state;
    } finally {
      standin.relabel(id, { owner: 'another-tool' });
    }
  }

  it('is refused by attach, stop and remove, by its id, and is left running and untouched', async () => {
    const id = await foreignSandbox();
    expect(await stateOf(id)).toBe('running');

    for (const act of [() => provider.attach(id), () => provider.stop(id), () => provider.remove(id)]) {
      const err = await refusal(act());
      expect(err.reason).toBe('not_deepdesk');
      expect(err.provider).toBe(name);
      expect(err.message).toContain("not Deepdesk's sandbox: it was not made by Deepdesk");
      expect(err.message).toContain(id);
    }

    // Neither stopped nor deleted, and nothing of Deepdesk's went into it.
    expect(standin.boxes.has(id)).toBe(true);
    expect(await stateOf(id)).toBe('running');
  });

  it("still attaches to, stops and removes Deepdesk's own sandbox", async () => {
    const made = await provider.create({ labels: { worktree: 'w' } });
    await made.close();
    const again = await provider.attach(made.id);
    try {
      expect((await again.execute('echo here', { timeoutMs: 30_000 })).output).toContain('here');
    } finally {
      await again.close();
    }
    await provider.stop(made.id);
    await provider.remove(made.id).catch((err: unknown) => {
      // Where stopping ends a sandbox for good (Modal, Deno), removing it after is removing a gone one.
      if (!(err instanceof SandboxProviderError && err.reason === 'gone')) throw err;
    });
    expect(standin.boxes.has(made.id)).toBe(false);
  });

});
