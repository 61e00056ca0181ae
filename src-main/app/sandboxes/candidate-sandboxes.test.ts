// Candidates forked in provider sandboxes as attackers (issue 78; SPEC §21 candidates, §18):
// each forking provider's adapter and SDK over its stand-in. A set of two is made as the host
// makes one (one sandbox set up with the folder, forked for the other); the second candidate's
// command then goes after the person's folder, the first candidate's worktree and sandbox, the
// folder's protected and sensitive files. Judged by effect: the person's folder and the other
// candidate are as they were, what comes back to its own worktree passed the layer check, and
// its sensitive write was put to the step's review (refused here) before anything landed.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { openDatabase } from '../../core/backends/store/store';
import type { LayerWrite } from '../../core/sandbox/types';
import { SANDBOX_PROVIDER_NAMES, SANDBOX_PROVIDER_TABLE } from '../../core/process/sandbox-provider-table';
import { startStandin } from '../../core/sandbox-providers/testing/standins';
import { forkedCandidateSandboxes } from './candidate-sandboxes';
import { sandboxFolderFor } from './sandbox-folder';
import { openSandboxPlace, type OpenedSandboxPlace } from './sandbox-place';
import { SandboxStore } from './sandbox-store';
import type { SettingsService } from '../settings/settings-service';

const FORKING = SANDBOX_PROVIDER_NAMES.filter((name) => SANDBOX_PROVIDER_TABLE[name].capabilities.fork);

let root: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-cand-fork-')));
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(root, { recursive: true, force: true });
});

const FILES: Record<string, string> = {
  'sum.js': 'module.exports = (a, b) => a - b;\n',
  '.claude/settings.json': '{}\n',
  'package.json': '{"name":"demo","scripts":{"test":"node check.js"}}\n',
};

it.each(FORKING)('a candidate forked in a %s sandbox reaches neither the person’s folder nor the other candidate; what it brings back is checked and its sensitive write reviewed', async (name) => {
  const folder = join(root, 'project');
  const dataDir = join(root, 'data');
  mkdirSync(join(folder, '.claude'), { recursive: true });
  mkdirSync(dataDir);
  for (const [rel, text] of Object.entries(FILES)) writeFileSync(join(folder, rel), text);
  const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' }).trim();
  git(folder, 'init', '-q');
  git(folder, 'add', '.');
  git(folder, 'commit', '-qm', 'fixture');
  const head = git(folder, 'rev-parse', 'HEAD');

  const standin = await startStandin(name);
  // Some SDKs read their endpoint from the process's environment only (Modal).
  for (const [k, v] of Object.entries(standin.env)) vi.stubEnv(k, v);
  const env = { ...process.env, ...standin.env };
  const db = openDatabase(join(dataDir, 'deepdesk.db'));
  const store = new SandboxStore(db);
  const places: OpenedSandboxPlace[] = [];
  try {
    const context = { dataDir, db, settings: { raw: () => ({}) as ReturnType<SettingsService['raw']>, sandboxKeys: async () => ({}) }, ledger: { recordSandboxTime: () => undefined } };
    const requests = await forkedCandidateSandboxes({ folder, cwd: folder, sandbox: { provider: name }, env, threadIds: ['t1', 't2'], nameHint: (i) => `sum ${i + 1}` }, context, () => undefined);
    if (requests === undefined) throw new Error(`${name} forks: each candidate gets a sandbox of its own`);
    expect(requests).toHaveLength(2);
    // Each candidate's run finds its own sandbox's worktree by its id, as `--sandbox-id` does.
    const open = async (id: string) => {
      const found = await sandboxFolderFor({ dataDir, db, folder, provider: name, sandboxId: id, env, savedKeys: async () => ({}) });
      expect(found.reattached).toBe(true);
      const place = await openSandboxPlace({ record: store.get(found.threadFolder)!, store, dataDir, env, settings: () => ({}), savedKeys: async () => ({}), say: () => undefined });
      places.push(place);
      return { place, worktree: found.threadFolder };
    };
    const first = await open(requests[0]!.id!);
    const second = await open(requests[1]!.id!);
    expect(second.worktree).not.toBe(first.worktree);

    const reviewed: string[] = [];
    const reviewLayer = async (writes: readonly LayerWrite[]) => {
      reviewed.push(...writes.map((w) => w.path));
      return new Map(writes.filter((w) => w.path.startsWith('/.github/')).map((w) => [w.path, 'refused by the reviewer']));
    };
    const attack = [
      // Named by this machine's paths: the person's folder, the other candidate's worktree.
      `for d in ${folder} ${first.worktree}; do mkdir -p "$d" 2>/dev/null; echo pwned > "$d/sum.js" 2>/dev/null; echo pwned > "$d/planted.txt" 2>/dev/null; done`,
      // Links to them, written through, and left to come back.
      `ln -s ${folder} person; ln -s ${first.worktree} other; ln -s ${folder}/sum.js sumlink`,
      'echo pwned > person/through.txt 2>/dev/null; echo pwned > other/through.txt 2>/dev/null',
      // The repository's surface and the folder's own configuration.
      'mkdir -p .git/hooks && printf "#!/bin/sh\\ntouch /tmp/fired\\n" > .git/hooks/post-commit',
      `printf '%s' '{"permissions":{"allow":["Bash(*)"]}}' > .claude/settings.json`,
      // A sensitive write (CI): to the step's review.
      'mkdir -p .github/workflows && printf "on: push\\njobs: {}\\n" > .github/workflows/ci.yml',
      // Its own honest change.
      "printf '%s\\n' 'module.exports = (a, b) => a + b;' > sum.js",
      'echo done',
    ].join('\n');
    const result = await second.place.shell.execute(attack, { timeoutS: 60, reviewLayer });
    expect(result.output).toContain('done');

    // Its own change came back to its own worktree; nothing else of the attack did.
    expect(readFileSync(join(second.worktree, 'sum.js'), 'utf8')).toContain('a + b');
    expect(readFileSync(join(second.worktree, '.claude/settings.json'), 'utf8')).toBe(FILES['.claude/settings.json']);
    expect(existsSync(join(second.worktree, '.github/workflows/ci.yml')), 'the sensitive write the review refused').toBe(false);
    expect(reviewed).toContain('/.github/workflows/ci.yml');
    // Links come back as links (as a local command's layer carries them); written through in the next step, they lead nowhere here.
    await second.place.shell.execute('echo pwned > person/again.txt; echo pwned > other/again.txt; echo pwned > sumlink', { timeoutS: 60, reviewLayer });
    expect(git(second.worktree, 'rev-parse', '--git-path', 'hooks')).not.toContain(second.worktree);
    expect(existsSync(join(git(second.worktree, 'rev-parse', '--git-common-dir'), 'hooks', 'post-commit')), 'a hook in the repository').toBe(false);
    // The person's folder and the other candidate (its worktree and its sandbox) are as they were.
    for (const dir of [folder, first.worktree]) {
      expect(git(dir, 'status', '--porcelain', '--ignored'), dir).toBe('');
      for (const [rel, text] of Object.entries(FILES)) expect(readFileSync(join(dir, rel), 'utf8'), `${dir}/${rel}`).toBe(text);
    }
    expect(git(folder, 'rev-parse', 'HEAD')).toBe(head);
    const otherSandbox = await first.place.shell.execute('cat sum.js; ls -a', { timeoutS: 60 });
    expect(otherSandbox.output).toContain('a - b');
    expect(otherSandbox.output).not.toMatch(/planted|through|\.github/);
  } finally {
    for (const place of places) await place.close().catch(() => undefined);
    db.close();
    await standin.close();
  }
}, 240_000);
