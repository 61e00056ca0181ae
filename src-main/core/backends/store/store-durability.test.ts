// A writer process killed with SIGKILL in the middle of a burst loses nothing it
// acknowledged and leaves a database that passes integrity checks.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreBackend } from './store';

const WRITER = fileURLToPath(new URL('./__fixtures__/store-writer.mjs', import.meta.url));
const KILL_AFTER_ACKS = 200;

/** Must match durabilityContent in __fixtures__/store-writer.mjs. */
function durabilityContent(i: number): string {
  return `memory ${i}\n${'line of text '.repeat(i % 17)}\nend ${i}\n`;
}

let tmp: string | undefined;
afterEach(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  tmp = undefined;
});

interface KilledRun {
  acked: number[];
  signal: NodeJS.Signals | null;
  code: number | null;
  stderr: string;
}

/** Runs the writer and SIGKILLs it as soon as it has acknowledged KILL_AFTER_ACKS writes. */
function runAndKill(dbFile: string): Promise<KilledRun> {
  // Type stripping is on by default from Node 22.18; the flag covers older 22.x releases.
  const args = ['--experimental-strip-types', '--no-warnings', WRITER, dbFile, '1000000'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const acked: number[] = [];
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const lines = readline.createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    const m = /^ack (\d+)$/.exec(line);
    if (!m) return;
    acked.push(Number(m[1]));
    if (acked.length === KILL_AFTER_ACKS) child.kill('SIGKILL');
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    // 'close' waits for stdout to drain, so every ack the child printed has been counted.
    child.on('close', (code, signal) => resolve({ acked, signal, code, stderr }));
  });
}

describe('StoreBackend durability', () => {
  it('keeps every acknowledged write when the writer is SIGKILLed mid-burst', async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-durability-'));
    const dbFile = path.join(tmp, 'data', 'deepdesk.db');

    const run = await runAndKill(dbFile);
    expect(run.signal, `writer ended by itself (code ${run.code}): ${run.stderr}`).toBe('SIGKILL');
    expect(run.acked.length).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);
    expect(run.acked).toEqual(run.acked.map((_, i) => i));

    const raw = new Database(dbFile);
    try {
      expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
      // Throws when the full-text index disagrees with itself.
      raw.exec("INSERT INTO store_files_fts (store_files_fts) VALUES ('integrity-check')");
    } finally {
      raw.close();
    }

    const store = new StoreBackend({ db: dbFile, namespace: 'durability' });
    try {
      for (const i of run.acked) {
        const res = await store.readRaw(`/burst/${i}.md`);
        expect(res.error, `acknowledged write ${i}`).toBeUndefined();
        expect(Buffer.from(res.data!).toString('utf8')).toBe(durabilityContent(i));
      }
      // Acknowledged writes are findable through the index too.
      const last = run.acked[run.acked.length - 1]!;
      const grep = await store.grep(`end ${last}`, '/burst');
      expect(grep.matches).toContainEqual({ path: `/burst/${last}.md`, line: 3, text: `end ${last}` });
      // Nothing half-written: every row that exists is complete.
      const listed = await store.glob('*.md', '/burst');
      for (const info of listed.matches ?? []) {
        const i = Number(/(\d+)\.md$/.exec(info.path)![1]);
        expect(Buffer.from((await store.readRaw(info.path)).data!).toString('utf8')).toBe(durabilityContent(i));
      }
    } finally {
      store.close();
    }
  });
});
