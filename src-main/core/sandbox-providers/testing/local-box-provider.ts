// A SandboxProvider straight over LocalBox, with no provider's wire in between: for the tests
// of what sits on the interface (the file tools, the upload and bring-back, the session),
// so they need no stand-in server. The providers' own adapters are tested against their
// stand-ins (../<provider>/*.test.ts).

import type {
  ProviderSandbox, SandboxExecOptions, SandboxExecResult, SandboxFileDownload, SandboxFileUpload, SandboxInfo, SandboxProvider, SandboxProviderName, SandboxSpec,
} from '../provider';
import { DEEPDESK_LABEL, requireDeepdesksSandbox, SandboxProviderError } from '../provider';
import { BoxFileFailure, LocalBox } from './local-box';

const HOME = '/home/user';
export const LOCAL_BOX_WORKDIR = `${HOME}/workspace`;

export class LocalBoxProvider implements SandboxProvider {
  readonly capabilities = { reattach: true, resume: true, snapshot: false, fork: false, idleTimeout: false };
  readonly boxes = new Map<string, { box: LocalBox; labels: Record<string, string>; state: string; createdAt: string }>();
  /** Calls made, by kind, for tests that count round trips. */
  readonly calls = { execute: 0, upload: 0, download: 0 };

  constructor(readonly name: SandboxProviderName = 'daytona') {}

  async create(spec: SandboxSpec): Promise<ProviderSandbox> {
    const box = new LocalBox({ home: HOME });
    box.makeDir(LOCAL_BOX_WORKDIR);
    this.boxes.set(box.id, { box, labels: { ...spec.labels, [DEEPDESK_LABEL.key]: DEEPDESK_LABEL.value }, state: 'running', createdAt: new Date().toISOString() });
    return this.sandbox(box);
  }

  async attach(id: string): Promise<ProviderSandbox> {
    const entry = this.boxes.get(id);
    if (!entry || entry.box.gone) throw new SandboxProviderError(`there is no sandbox ${id}`, 'gone', this.name);
    requireDeepdesksSandbox(this.name, id, entry.labels);
    entry.state = 'running';
    return this.sandbox(entry.box);
  }

  async list(): Promise<SandboxInfo[]> {
    return [...this.boxes.values()].filter((e) => !e.box.gone).map((e) => ({ id: e.box.id, provider: this.name, state: e.state, labels: e.labels, createdAt: e.createdAt }));
  }

  async stop(id: string): Promise<void> {
    const entry = this.boxes.get(id);
    if (!entry || entry.box.gone) throw new SandboxProviderError(`there is no sandbox ${id}`, 'gone', this.name);
    requireDeepdesksSandbox(this.name, id, entry.labels);
    entry.box.stopAll();
    entry.state = 'stopped';
  }

  async remove(id: string): Promise<void> {
    const entry = this.boxes.get(id);
    if (!entry || entry.box.gone) throw new SandboxProviderError(`there is no sandbox ${id}`, 'gone', this.name);
    requireDeepdesksSandbox(this.name, id, entry.labels);
    entry.box.destroy();
    this.boxes.delete(id);
  }

  /** Removes every box (a test's cleanup). */
  dispose(): void {
    for (const { box } of this.boxes.values()) if (!box.gone) box.destroy();
    this.boxes.clear();
  }

  private sandbox(box: LocalBox): ProviderSandbox {
    const gone = (): SandboxProviderError => new SandboxProviderError(`the sandbox ${box.id} is gone`, 'gone', this.name);
    // As the services: a stopped sandbox takes no command nor file call until it is started again (attach).
    const stopped = (): boolean => this.boxes.get(box.id)?.state === 'stopped';
    const stoppedError = (): SandboxProviderError => new SandboxProviderError(`the sandbox ${box.id} is stopped`, 'stopped', this.name);
    return {
      id: box.id,
      provider: this.name,
      workdir: LOCAL_BOX_WORKDIR,
      execute: async (command: string, options: SandboxExecOptions): Promise<SandboxExecResult> => {
        this.calls.execute++;
        if (box.gone) throw gone();
        if (stopped()) throw stoppedError();
        let output = '';
        const take = (c: Buffer): void => {
          const text = c.toString('utf8');
          output += text;
          options.onOutput?.(text);
        };
        const p = box.run(command, { cwd: options.cwd ?? LOCAL_BOX_WORKDIR, onStdout: take, onStderr: take });
        let timedOut = false;
        const timer = setTimeout(() => ((timedOut = true), p.kill()), options.timeoutMs);
        const onAbort = (): void => p.kill();
        options.signal?.addEventListener('abort', onAbort, { once: true });
        const { code } = await p.done;
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        if (box.gone) throw gone();
        if (options.signal?.aborted) return { output, exitCode: null, timedOut: false };
        return { output, exitCode: timedOut ? 124 : code, timedOut };
      },
      upload: async (files: readonly SandboxFileUpload[]) => {
        this.calls.upload++;
        if (box.gone) throw gone();
        if (stopped()) throw stoppedError();
        return files.map((f) => {
          try {
            box.writeFile(f.path, f.content, f.mode);
            return { path: f.path };
          } catch (err) {
            return { path: f.path, error: err instanceof BoxFileFailure ? err.code : 'invalid_path' };
          }
        });
      },
      download: async (paths: readonly string[]): Promise<SandboxFileDownload[]> => {
        this.calls.download++;
        if (box.gone) throw gone();
        if (stopped()) throw stoppedError();
        return paths.map((p) => {
          try {
            return { path: p, content: new Uint8Array(box.readFile(p)) };
          } catch (err) {
            return { path: p, error: err instanceof BoxFileFailure ? err.code : 'invalid_path' };
          }
        });
      },
      close: async () => undefined,
    };
  }
}
