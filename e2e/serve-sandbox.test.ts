// `deepdesk serve --sandbox daytona --folder F` (SPEC §5, §18) in headless Chromium, with the
// real @daytonaio/sdk against the Daytona stand-in: the window opens on the sandbox worktree of
// F, said in one line; a thread's command runs in the sandbox and what it changes comes back to
// the worktree, F stays as it was. Without --folder it is bad usage.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDaytonaStandin } from '../src-main/core/sandbox-providers/testing/daytona-standin';
import type { ProviderStandin } from '../src-main/core/sandbox-providers/testing/standin';
import { approval, conversation, openApp, repo, sendMessage, useE2ESession } from './harness';

const NO_PROVIDER_KEYS = { DAYTONA_API_KEY: '', DAYTONA_API_URL: '', E2B_API_KEY: '', MODAL_TOKEN_ID: '', MODAL_TOKEN_SECRET: '', DENO_DEPLOY_TOKEN: '' };
const session = useE2ESession();
let standin: ProviderStandin;
beforeEach(async () => {
  standin = await startDaytonaStandin();
});
afterEach(async () => {
  await standin.close();
});

function project(): string {
  const folder = mkdtempSync(join(tmpdir(), 'deepdesk-e2e-folder-'));
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=Pat', '-c', 'user.email=pat@example.com', ...args], { cwd: folder });
  git('init', '-q');
  writeFileSync(join(folder, 'a.txt'), 'alpha\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  return folder;
}

describe('deepdesk serve --sandbox daytona', () => {
  it("opens the window on the folder's sandbox worktree, where a thread's commands run in the sandbox", async () => {
    const folder = project();
    const serve = await session.serve({
      folder,
      extraArgs: ['--sandbox', 'daytona'],
      env: { ...NO_PROVIDER_KEYS, ...standin.env },
      script: [{ toolCalls: [{ name: 'execute', args: { command: 'hostname; cat a.txt; echo made here > made.txt' } }] }, { text: 'Ran it in the sandbox.' }],
    });
    const said = /The thread works in worktree (\S+) at (\S+) \(branch deepdesk\/\1\), in a Daytona sandbox/.exec(serve.stderr());
    expect(said, serve.stderr()).not.toBeNull();
    const worktree = said![2]!;

    const page = await openApp(session.browser, serve.url);
    await sendMessage(page, 'Run something');
    await approval(page).waitFor({ timeout: 60_000 });
    await approval(page).getByRole('button', { name: 'Approve' }).click();
    await conversation(page).getByText('Ran it in the sandbox.').waitFor({ timeout: 60_000 });
    const results = (serve.model.requests.at(-1)?.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(results[0]).toContain('sandbox\nalpha\n');
    expect(standin.boxes.size).toBe(1);
    expect(readFileSync(join(worktree, 'made.txt'), 'utf8')).toBe('made here\n');
    expect(existsSync(join(folder, 'made.txt'))).toBe(false);
    await page.context().close();
  });

  it('without --folder, --sandbox is bad usage', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-e2e-data-'));
    try {
      const child = spawn(process.execPath, [join(repo, 'bin/deepdesk.mjs'), 'serve', '--sandbox', 'daytona', '--data-dir', dataDir, '--port', '0'], {
        cwd: repo,
        env: { ...process.env, ...NO_PROVIDER_KEYS, ...standin.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise((done) => child.once('close', done));
      expect(code).toBe(2);
      expect(stderr).toBe('deepdesk serve: --sandbox and --sandbox-id on serve need --folder: the window opens on the sandbox worktree of that folder\n');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
