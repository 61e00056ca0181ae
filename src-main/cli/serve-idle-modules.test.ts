// What `deepdesk serve` and its agent host load before anyone runs anything (issue 66: serve's
// memory at 100,000 files). The SDKs that only a model call, a trace or an editor needs are
// loaded then, not at start: each was megabytes of every window's host. Seen by effect: every
// module both processes resolve is logged by a resolve hook given through NODE_OPTIONS (the
// host is started with serve's environment), while a window is open on a folder whose first
// snapshot was taken.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeDataDir } from '../app/host/testing/remove-data-dir';
import { CheckpointStore } from '../core/checkpoints/store';
import { bin, moduleLogEnv, repo } from './cli-harness.test-support';

/** Loaded only when a run calls a model, traces are configured, or an editor or another agent connects. */
const LATER = /\/node_modules\/(@opentelemetry|langsmith|@ai-sdk\/(anthropic|google|openai|openai-compatible)|@agentclientprotocol)\//;

let dir: string;
let serve: ChildProcess | undefined;

afterEach(() => {
  serve?.kill('SIGKILL');
  serve = undefined;
  removeDataDir(join(dir, 'data'));
  rmSync(dir, { recursive: true, force: true });
});

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not seen in ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('deepdesk serve at rest', () => {
  it('loads no model provider, tracing or Agent Client Protocol SDK until one is needed, in serve or its agent host', async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-serve-idle-')));
    const folder = join(dir, 'project');
    const dataDir = join(dir, 'data');
    mkdirSync(join(folder, 'src'), { recursive: true });
    for (let i = 0; i < 20; i++) writeFileSync(join(folder, 'src', `file${i}.ts`), `export const v${i} = ${i};\n`);
    const log = join(dir, 'modules.log');
    writeFileSync(log, '');
    serve = spawn(process.execPath, [bin, 'serve', '--folder', folder, '--data-dir', dataDir, '--port', '0'], {
      cwd: repo,
      env: { ...process.env, OPENAI_API_KEY: '', DEEPDESK_HOME: dataDir, ...moduleLogEnv(dir, log) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    serve.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await until(() => out.includes('Deepdesk is running at'), 'serve ready');
    // The window's folder opened in the host: its watch is up and its first snapshot taken.
    await until(() => {
      const store = CheckpointStore.open(dataDir);
      try {
        return store.hasBaseline(folder);
      } finally {
        store.close();
      }
    }, "the folder's first snapshot");
    const modules = readFileSync(log, 'utf8').split('\n');
    // The hook ran in the host too: only the host watches the folder.
    expect(modules.some((url) => url.includes('/node_modules/@parcel/watcher/'))).toBe(true);
    expect(modules.filter((url) => LATER.test(url))).toEqual([]);
  });
});
