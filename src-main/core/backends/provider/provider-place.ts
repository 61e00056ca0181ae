// One sandbox of a provider (Daytona, Modal, E2B, Deno) as a Place (script/place.ts) for the
// script backend (SPEC §18): scripts run through the provider's execute in `/`, each in one call
// where the provider has one (`oneCall`: they start nothing and stream nothing), whose output is
// text only, so file contents travel through its upload and download (`files`; a small file read
// comes with the answer of the script that checked it). A provider's
// failure (SandboxProviderError) is a PlaceError in its plain words.

import { PlaceError, type Place, type PlaceFileError, type PlaceRun, type PlaceRunOptions } from '../script/place';
import { SandboxProviderError, type ProviderSandbox } from '../../sandbox-providers/provider';

export class ProviderPlace implements Place {
  readonly transfer = 'files' as const;
  readonly label = 'the sandbox';
  readonly where = 'in the sandbox';

  constructor(readonly sandbox: ProviderSandbox) {}

  get id(): string {
    return `${this.sandbox.provider}:${this.sandbox.id}`;
  }

  get root(): string {
    return this.sandbox.workdir;
  }

  async run(script: string, options: PlaceRunOptions = {}): Promise<PlaceRun> {
    const r = await said(() =>
      this.sandbox.execute(script, { cwd: '/', timeoutMs: options.timeoutMs ?? 60_000, oneCall: true, ...(options.signal ? { signal: options.signal } : {}) }),
    );
    return { output: Buffer.from(r.output, 'utf8'), exitCode: r.exitCode, timedOut: r.timedOut };
  }

  upload(files: ReadonlyArray<{ path: string; content: Uint8Array }>, signal?: AbortSignal): Promise<Array<{ path: string; error?: PlaceFileError }>> {
    return said(() => this.sandbox.upload(files, signal));
  }

  download(paths: readonly string[], signal?: AbortSignal): Promise<Array<{ path: string; content?: Uint8Array; error?: PlaceFileError }>> {
    return said(() => this.sandbox.download(paths, signal));
  }
}

async function said<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof SandboxProviderError) throw new PlaceError(err.message);
    throw err;
  }
}
