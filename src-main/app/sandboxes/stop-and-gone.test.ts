// A sandbox stopped or deleted under its thread, for every provider against its stand-in (the
// official SDK pointed at it; SPEC §18): where the provider can start a stopped sandbox again
// (Daytona, E2B's pause), the thread's next command does and runs; where stopping ends it (Modal,
// Deno), the thread is told its sandbox is gone with both ways forward. A deleted sandbox is said
// gone the same way everywhere, and no time is recorded past it.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SANDBOX_PROVIDER_TABLE } from '../../core/process/sandbox-provider-table';
import { SANDBOX_PROVIDER_NAMES, type SandboxProviderName } from '../../core/sandbox-providers/provider';
import { openSandboxProvider } from '../../core/sandbox-providers/registry';
import type { ProviderStandin } from '../../core/sandbox-providers/testing/standin';
import { startStandin } from '../../core/sandbox-providers/testing/standins';
import { openSandboxPlace } from './sandbox-place';
import { SandboxStore } from './sandbox-store';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
  vi.unstubAllEnvs();
});

async function placeIn(name: SandboxProviderName) {
  const standin: ProviderStandin = await startStandin(name);
  cleanup.push(() => standin.close());
  for (const [k, v] of Object.entries(standin.env)) vi.stubEnv(k, v);
  const provider = await openSandboxProvider(name, { env: { ...standin.env } });
  const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-stop-gone-')));
  cleanup.push(() => fs.rmSync(folder, { recursive: true, force: true }));
  execFileSync('git', ['init', '-q'], { cwd: folder });
  fs.writeFileSync(path.join(folder, 'a.txt'), 'alpha\n');
  const db = new Database(':memory:');
  cleanup.push(() => db.close());
  const store = new SandboxStore(db);
  store.put({ folder, worktree: 'w', provider: name });
  const said: string[] = [];
  const rows: Array<{ at: string; seconds: number }> = [];
  const place = await openSandboxPlace({ record: store.get(folder)!, store, dataDir: folder, env: { ...standin.env }, settings: () => ({}), savedKeys: async () => ({}), say: (l) => said.push(l), recordTime: (r) => rows.push(r), provider });
  cleanup.push(async () => {
    await place.close();
    await provider.remove(place.sandbox.id).catch(() => undefined);
  });
  return { provider, place, store, folder, said, rows };
}

describe.each(SANDBOX_PROVIDER_NAMES.map((name) => [name] as [SandboxProviderName]))('%s', (name) => {
  const resumes = SANDBOX_PROVIDER_TABLE[name].capabilities.resume;

  it(resumes ? 'a stopped sandbox is started again by the next command, which runs' : 'a stopped sandbox (ended by the provider) is said gone, with both ways forward', async () => {
    const t = await placeIn(name);
    expect((await t.place.shell.execute('echo kept > kept.txt')).exitCode).toBe(0);
    await t.provider.stop(t.place.sandbox.id);
    const r = await t.place.shell.execute('cat kept.txt');
    if (resumes) {
      expect(r.exitCode).toBe(0);
      expect(r.output).toContain('kept');
      expect(t.said.at(-1)).toMatch(/was stopped; Deepdesk started it again\.$/);
      expect(t.place.state().state).toBe('running');
    } else {
      expect(r.output).toMatch(/^Error: .*(gone|ended|stopped).*continue it in a new sandbox .*or on this computer/s);
      expect(t.place.state().state).toBe('gone');
      expect(t.store.get(t.folder)!.state).toBe('gone');
    }
  });

  it('a deleted sandbox is said gone, with both ways forward; no time after it', async () => {
    const t = await placeIn(name);
    expect((await t.place.shell.execute('true')).exitCode).toBe(0);
    await t.provider.remove(t.place.sandbox.id);
    const r = await t.place.shell.execute('true');
    const foundBy = Date.now();
    expect(r.output).toMatch(/^Error: .*continue it in a new sandbox .*or on this computer/s);
    expect(t.place.state().state).toBe('gone');
    // The clock stopped when the call found it gone (by the rows' own times, not the machine's speed).
    const counted = t.rows.length;
    await t.place.close();
    expect(t.rows).toHaveLength(counted);
    for (const row of t.rows) expect(Math.round(Date.parse(row.at) + row.seconds * 1000)).toBeLessThanOrEqual(foundBy);
  });
});
