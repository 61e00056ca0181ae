// The shared suites on one provider's stand-in (SPEC §18 "Tested without the providers"):
// §3's conformance cases and Deep Agents' sandbox standard cases on ProviderBackend over a
// sandbox that the provider's real adapter (and so its official SDK) made on the stand-in.
// One sandbox for the conformance cases, its workdir emptied between cases (a sandbox per
// case costs a create round trip the suite does not test); one more for the standard cases,
// shared as Deep Agents shares one instance.

import { afterAll, beforeAll, describe, vi } from 'vitest';
import type { ProviderCredentials, ProviderSandbox, SandboxProvider } from '../../../sandbox-providers/provider';
import type { ProviderStandin } from '../../../sandbox-providers/testing/standin';
import { shQuote } from '../../../text/shell-quote';
import { ProviderBackend } from '../../provider/provider-backend';
import { deepAgentsSandboxCases } from '../deepagents-sandbox/standard-cases.test-support';
import { describeBackendConformance } from '../suite.test-support';

export interface StandinSuiteOptions {
  label: string;
  start(): Promise<ProviderStandin>;
  adapter(credentials: ProviderCredentials): SandboxProvider;
  /** The SDK reads its endpoint from process.env only (Modal). */
  stubProcessEnv?: boolean;
}

/** Everything in the workdir goes, unreadable and unwritable entries included. */
async function emptyWorkdir(sandbox: ProviderSandbox): Promise<void> {
  const w = shQuote(sandbox.workdir);
  const r = await sandbox.execute(`chmod -R u+rwX ${w} 2>/dev/null; find ${w} -mindepth 1 -delete && test -z "$(ls -A ${w})"`, { timeoutMs: 30_000 });
  if (r.exitCode !== 0) throw new Error(`could not empty ${sandbox.workdir}: ${r.output}`);
}

export function describeStandinSuites(options: StandinSuiteOptions): void {
  let standin: ProviderStandin | undefined;
  let provider: SandboxProvider | undefined;
  const made: ProviderSandbox[] = [];
  const create = async (): Promise<ProviderSandbox> => {
    if (!provider) throw new Error('no stand-in');
    const sandbox = await provider.create({ labels: {} });
    made.push(sandbox);
    return sandbox;
  };

  beforeAll(async () => {
    standin = await options.start();
    if (options.stubProcessEnv) for (const [k, v] of Object.entries(standin.env)) vi.stubEnv(k, v);
    provider = options.adapter({ env: { ...standin.env } });
  });
  afterAll(async () => {
    for (const sandbox of made.splice(0)) await sandbox.close();
    if (options.stubProcessEnv) vi.unstubAllEnvs();
    await standin?.close();
  });

  describe(`${options.label} stand-in`, () => {
    let shared: ProviderSandbox | undefined;
    describeBackendConformance(`ProviderBackend (${options.label} stand-in)`, {
      create: async () => {
        shared ??= await create();
        await emptyWorkdir(shared);
        return { backend: new ProviderBackend(shared), cleanup: async () => undefined };
      },
    });

    describe('Deep Agents sandbox standard cases', () => {
      let backend: ProviderBackend | undefined;
      beforeAll(async () => {
        backend = new ProviderBackend(await create());
      });
      deepAgentsSandboxCases(() => {
        if (!backend) throw new Error('no sandbox');
        return backend;
      });
    });
  });
}
