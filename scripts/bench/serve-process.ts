// `deepdesk serve` as a person starts it (the built bin), in throwaway folders, optionally
// pointed at the scripted model server; ready when it prints its URL.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface ServeProcess {
  url: string;
  /** From spawn to the "Deepdesk is running at" line. */
  readyMs: number;
  folder: string;
  /** Its data folder (DEEPDESK_HOME): another client of its agent host connects there. */
  dataDir: string;
  pid: number;
  /** The agent host's pid for its data folder (started by serve on demand), once there is one. */
  hostPid(): number | null;
  stop(): Promise<void>;
}

/** The pid of the `deepdesk host --data-dir DATA_DIR` process, if one runs (Linux: read from /proc). */
export function hostPidOf(dataDir: string): number | null {
  if (os.platform() !== 'linux') return null;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const at = args.indexOf('--data-dir');
    if (args.includes('host') && at >= 0 && args[at + 1] === dataDir) return Number(entry);
  }
  return null;
}

const READY_LINE = /Deepdesk is running at (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/;

export function builtCli(repo: string): string | null {
  return fs.existsSync(path.join(repo, 'out', 'main', 'cli.js')) && fs.existsSync(path.join(repo, 'out', 'renderer', 'index.html'))
    ? path.join(repo, 'bin', 'deepdesk.mjs')
    : null;
}

/** `folder`: serve this existing folder (kept) instead of a new empty one (removed after); `dataDir`: this data folder (removed after). */
export async function startServe(repo: string, options: { modelUrl?: string; timeoutMs?: number; folder?: string; dataDir?: string } = {}): Promise<ServeProcess> {
  const bin = builtCli(repo);
  if (bin === null) throw new Error('not built: run `npm run build` first');
  const folder = options.folder ?? fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-serve-'));
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-serve-data-'));
  const modelArgs = options.modelUrl ? ['--model', 'openai-compatible:scripted-model', '--base-url', options.modelUrl] : [];
  const start = performance.now();
  const child = spawn(process.execPath, [bin, 'serve', '--folder', folder, '--data-dir', dataDir, '--port', '0', ...modelArgs], {
    cwd: repo,
    env: { ...process.env, OPENAI_API_KEY: '', DEEPDESK_HOME: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const cleanup = async (): Promise<void> => {
    // The agent host outlives serve until it has been idle a while: it goes now, with its data folder.
    const host = hostPidOf(dataDir);
    if (host !== null) {
      try {
        process.kill(host, 'SIGTERM');
      } catch {
        // Gone already.
      }
    }
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    if (options.folder === undefined) fs.rmSync(folder, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    const { url, readyMs } = await new Promise<{ url: string; readyMs: number }>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`deepdesk serve not ready after ${options.timeoutMs ?? 20_000} ms: ${stderr.trim()}`)), options.timeoutMs ?? 20_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = READY_LINE.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve({ url: m[1]!, readyMs: performance.now() - start });
        }
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`deepdesk serve exited with ${code}: ${stderr.trim().split('\n').pop() ?? ''}`));
      });
    });
    return { url, readyMs, folder, dataDir, pid: child.pid!, hostPid: () => hostPidOf(dataDir), stop: cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
