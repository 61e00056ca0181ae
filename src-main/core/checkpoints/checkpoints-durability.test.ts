// A process killed with SIGKILL while it records checkpoints leaves a history that opens,
// passes SQLite's integrity check, refers only to content it kept, and still restores.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckpointHistory } from './history';
import { CheckpointStore } from './store';

const WRITER = fileURLToPath(new URL('./__fixtures__/checkpoint-writer.mjs', import.meta.url));

let tmp: string | undefined;
afterEach(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  tmp = undefined;
});

/** Runs the writer and SIGKILLs it when `kill` says so for a line it printed. */
function runAndKill(dataDir: string, folder: string, kill: (line: string) => boolean): Promise<{ acked: number; signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings', WRITER, dataDir, folder], { stdio: ['ignore', 'pipe', 'pipe'] });
  let acked = 0;
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    if (line.startsWith('ack ')) acked++;
    if (kill(line)) child.kill('SIGKILL');
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (_code, signal) => resolve({ acked, signal, stderr }));
  });
}

function checkConsistent(dataDir: string): void {
  const store = CheckpointStore.open(dataDir);
  try {
    expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    const missing = store.db
      .prepare(
        `SELECT COUNT(*) AS n FROM (
           SELECT before_hash AS h FROM entries WHERE before_type IN ('f','l')
           UNION ALL SELECT after_hash FROM entries WHERE after_type IN ('f','l')
           UNION ALL SELECT hash FROM manifest WHERE type IN ('f','l')) WHERE h NOT IN (SELECT hash FROM blobs)`,
      )
      .get() as { n: number };
    expect(missing.n).toBe(0);
    const empty = store.db.prepare('SELECT COUNT(*) AS n FROM checkpoints c WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.checkpoint_seq = c.seq)').get() as { n: number };
    expect(empty.n).toBe(0);
  } finally {
    store.close();
  }
}

describe('checkpoint durability', () => {
  it('keeps a consistent, restorable history when the recorder is SIGKILLed mid-step and mid-checkpoint', async () => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-cp-kill-')));
    const dataDir = path.join(tmp, 'data');
    const folder = path.join(tmp, 'project');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'seed.txt'), 'original seed\n');

    // Killed as a step starts (its files half written), then right after a commit (the next walk under way).
    const first = await runAndKill(dataDir, folder, (line) => line === 'step 3');
    expect(first.stderr).toBe('');
    expect(first.signal).toBe('SIGKILL');
    expect(first.acked).toBe(3);
    checkConsistent(dataDir);
    const second = await runAndKill(dataDir, folder, (line) => line === 'ack 1');
    expect(second.signal).toBe('SIGKILL');
    checkConsistent(dataDir);

    const store = CheckpointStore.open(dataDir);
    try {
      const history = new CheckpointHistory(store);
      const list = history.list('killed');
      expect(list.length).toBeGreaterThanOrEqual(4);
      // Everything the killed runs recorded goes back; the unrecorded rest was seen as someone else's.
      const outcome = await history.restoreTo(list[0]!.id, 'take-restore');
      expect(outcome.applied).toBe(true);
      expect(fs.readFileSync(path.join(folder, 'seed.txt'), 'utf8')).toBe('original seed\n');
      for (const c of list) {
        for (const e of store.entries(c)) if (e.before === null && e.after?.type === 'f') expect(fs.existsSync(path.join(folder, e.path))).toBe(false);
      }
    } finally {
      store.close();
    }
    checkConsistent(dataDir);
  });
});
