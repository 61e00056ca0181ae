// `deepdesk run --sandbox daytona` through the built CLI, the agent host and the real
// @daytonaio/sdk against the Daytona stand-in (SPEC §18): what goes up and what stays behind,
// commands running in the sandbox (not here), what comes back to the worktree and what the
// layer check stops, `sandboxes ls/rm`, a sandbox that vanishes mid-run, reattaching, and the
// missing-credential line of every provider.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDaytonaStandin } from '../core/sandbox-providers/testing/daytona-standin';
import type { ProviderStandin } from '../core/sandbox-providers/testing/standin';
import * as pty from 'node-pty';
import { bin, repo, useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-sandbox-run');
let standin: ProviderStandin;
beforeEach(async () => {
  standin = await startDaytonaStandin();
});
afterEach(async () => {
  await standin.close();
});

const model = () => ['--folder', t.folder, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url];
const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=Pat', '-c', 'user.email=pat@example.com', ...args], { cwd: t.folder, encoding: 'utf8' });
const NO_PROVIDER_KEYS = { DAYTONA_API_KEY: '', DAYTONA_API_URL: '', E2B_API_KEY: '', MODAL_TOKEN_ID: '', MODAL_TOKEN_SECRET: '', DENO_DEPLOY_TOKEN: '' };
const env = () => ({ ...NO_PROVIDER_KEYS, ...standin.env });

function project(): void {
  git('init', '-q');
  writeFileSync(join(t.folder, 'a.txt'), 'alpha\n');
  writeFileSync(join(t.folder, '.gitignore'), 'build/\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  writeFileSync(join(t.folder, 'untracked.txt'), 'not committed\n');
  mkdirSync(join(t.folder, 'build'));
  writeFileSync(join(t.folder, 'build', 'out.o'), 'ignored');
  writeFileSync(join(t.folder, '.env'), 'API_KEY=do-not-send');
}

/** The tool results the model was sent last, in order. */
function toolResults(): string[] {
  const last = t.server.requests.at(-1);
  return (last?.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));
}

/** Whether a process of this machine runs with `text` in its command line (a stand-in's sandboxed command). */
function running(text: string): boolean {
  try {
    return execFileSync('pgrep', ['-f', text], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false;
  }
}

describe('deepdesk run --sandbox daytona', () => {
  it('sends the folder as git sees it, runs commands there, brings changes back to a worktree through the layer check; sandboxes ls and rm', async () => {
    project();
    t.server.push(
      { toolCalls: [{ name: 'execute', args: { command: 'hostname; pwd; ls -A; cat a.txt untracked.txt; echo changed > a.txt; mkdir -p .deepdesk && echo "{}" > .deepdesk/settings.json; touch here-marker' } }] },
      { toolCalls: [{ name: 'write_file', args: { file_path: '/new.txt', content: 'written by the agent\n' } }] },
      { text: 'done' },
    );
    const run = await t.deepdesk(['run', '--sandbox', 'daytona', ...model(), '--approve', 'auto', 'work in the sandbox'], env());
    expect(run.stderr).toMatch(/Uploaded 3 files \(.*\) to the Daytona sandbox \S+; left out: \.env \(a dotenv file\)\./);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('done\n');

    // The agent is told where it works and what was not sent.
    const system = JSON.stringify(t.server.requests[0]!.messages.filter((m) => m.role === 'system'));
    expect(system).toContain('Your file tools and commands work in a Daytona sandbox');
    expect(system).toContain('left out: .env (a dotenv file)');
    // The thread starts with the upload, as a note (the window shows it, threads export has it).
    const firstUser = t.server.requests[0]!.messages.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content));
    expect(firstUser.some((text) => /Note: Uploaded 3 files .*To leave more out, add it to the folder’s \.gitignore/.test(text))).toBe(true);
    const [listing, written] = toolResults();
    expect(listing).toContain('sandbox\n/home/daytona/workspace\n');
    expect(listing).toContain('.gitignore\na.txt\nuntracked.txt\nalpha\nnot committed\n');
    expect(listing).not.toContain('.env');
    expect(listing).not.toContain('build');
    expect(listing).toMatch(/\[Sandbox blocked a write to \/\.deepdesk\/settings\.json/);
    expect(written).toContain('new.txt');

    // Nothing ran here, and the person's folder is as it was.
    expect(existsSync(join(t.folder, 'here-marker'))).toBe(false);
    expect(readFileSync(join(t.folder, 'a.txt'), 'utf8')).toBe('alpha\n');
    expect(existsSync(join(t.folder, 'new.txt'))).toBe(false);

    const worktree = /worktree (\S+) at (\S+) \(branch deepdesk\/\1\)/.exec(run.stderr);
    expect(worktree).not.toBeNull();
    const wt = worktree![2]!;
    expect(readFileSync(join(wt, 'a.txt'), 'utf8')).toBe('changed\n');
    expect(readFileSync(join(wt, 'new.txt'), 'utf8')).toBe('written by the agent\n');
    expect(readFileSync(join(wt, 'here-marker'), 'utf8')).toBe('');
    expect(readFileSync(join(wt, 'untracked.txt'), 'utf8')).toBe('not committed\n');
    expect(existsSync(join(wt, '.deepdesk'))).toBe(false);

    const ls = await t.deepdesk(['sandboxes', 'ls', '--json', '--data-dir', t.dataDir], env());
    expect(ls.code).toBe(0);
    const listed = JSON.parse(ls.stdout) as Array<{ id: string; provider: string; state: string; threads: string[]; worktree: string }>;
    expect(listed).toEqual([expect.objectContaining({ provider: 'daytona', state: 'running', worktree: worktree![1] })]);
    expect(listed[0]!.threads).toHaveLength(1);
    const id = listed[0]!.id;
    expect([...standin.boxes.keys()]).toEqual([id]);
    const table = await t.deepdesk(['sandboxes', 'ls', '--data-dir', t.dataDir], env());
    expect(table.stdout).toMatch(new RegExp(`^ID\\s+PROVIDER\\s+STATE\\s+AGE\\s+THREADS\\s+FOLDER\\n${id}\\s+Daytona\\s+running\\s+\\S+\\s+${listed[0]!.threads[0]}\\s+${wt}`));

    // The sandbox's time is in the ledger, counted to the thread.
    const usage = JSON.parse((await t.deepdesk(['usage', '--json', '--data-dir', t.dataDir], env())).stdout) as { sandboxes: Array<{ key: string; provider: string; seconds: number }> };
    expect(usage.sandboxes).toEqual([expect.objectContaining({ key: listed[0]!.threads[0], provider: 'daytona' })]);
    expect(usage.sandboxes[0]!.seconds).toBeGreaterThan(0);

    const rm = await t.deepdesk(['sandboxes', 'rm', id, '--data-dir', t.dataDir], env());
    expect(rm.stderr).toBe('');
    expect(rm.stdout).toBe(`Removed ${id} (Daytona); its worktree and threads are kept, and its threads carry on on this computer.\n`);
    expect(standin.boxes.size).toBe(0);
    expect(JSON.parse((await t.deepdesk(['sandboxes', 'ls', '--json', '--data-dir', t.dataDir], env())).stdout)).toEqual([]);
  });

  it('reattaches with --sandbox-id without sending the folder again; a sandbox that vanishes mid-run is an Error: result and loses nothing that came back', async () => {
    project();
    t.server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/kept.txt', content: 'kept\n' } }] }, { text: 'first' });
    const first = await t.deepdesk(['run', '--sandbox', 'daytona', ...model(), '--approve', 'auto', 'first'], env());
    expect(first.code).toBe(0);
    const id = [...standin.boxes.keys()][0]!;
    const wt = /worktree \S+ at (\S+) /.exec(first.stderr)![1]!;
    const uploads = standin.requests.filter((r) => r.includes('bulk-upload')).length;

    t.server.push({ toolCalls: [{ name: 'execute', args: { command: 'cat kept.txt; sleep 31.5' } }] }, { text: 'carried on' });
    const second = t.deepdesk(['run', '--sandbox', 'daytona', '--sandbox-id', id, ...model(), '--approve', 'auto', 'second'], env());
    // The command runs: the sandbox vanishes under it.
    // Waits for the command (a state); the bound is only against a hang.
    const deadline = Date.now() + 60_000;
    while (!running('sleep 31.5')) {
      if (Date.now() > deadline) throw new Error(`the command never started: ${standin.requests.join('\n')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    standin.vanish(id);
    const done = await second;
    expect(done.stderr).toContain(`Reattaching the Daytona sandbox ${id}`);
    expect(standin.requests.filter((r) => r.includes('bulk-upload')).length).toBe(uploads);
    expect(done.code).toBe(0);
    expect(done.stdout).toBe('carried on\n');
    expect(toolResults().at(-1)).toMatch(/^Error: .*Daytona sandbox .* is gone/m);
    expect(readFileSync(join(wt, 'kept.txt'), 'utf8')).toBe('kept\n');

    t.server.push({ text: 'never' });
    const gone = await t.deepdesk(['run', '--sandbox-id', id, ...model(), '--approve', 'auto', 'third'], env());
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toMatch(/Daytona sandbox .* is gone.*The thread and what came back from the sandbox are kept in its worktree/);
  }, 180_000);

  it('asks on a terminal before a command, saying where it runs (Runs in Daytona · sandbox ID)', async () => {
    project();
    t.server.push({ toolCalls: [{ name: 'execute', args: { command: 'hostname' } }] }, { text: 'asked first' });
    const term = pty.spawn(process.execPath, [bin, 'run', '--sandbox', 'daytona', ...model(), 'run hostname'], {
      cwd: repo,
      env: { ...process.env, OPENAI_API_KEY: '', DEEPDESK_HOME: t.dataDir, ...env() } as Record<string, string>,
      cols: 160,
      rows: 40,
    });
    let screen = '';
    term.onData((d) => (screen += d));
    const exited = new Promise<number>((done) => term.onExit(({ exitCode }) => done(exitCode)));
    await expect.poll(() => screen, { timeout: 60_000 }).toContain('Approve?');
    const id = [...standin.boxes.keys()][0]!;
    expect(screen).toContain('execute needs approval');
    expect(screen).toContain(`Runs in Daytona · sandbox ${id}`);
    term.write('y\r');
    expect(await exited).toBe(0);
    expect(toolResults()[0]).toContain('sandbox');
  });

  it('says which variable each provider needs, and Settings, in one line, before anything is made', async () => {
    project();
    const lines: Record<string, RegExp> = {
      daytona: /^deepdesk run: Daytona needs DAYTONA_API_KEY: set it in the environment or in Settings › Sandboxes\.$/m,
      e2b: /^deepdesk run: E2B needs E2B_API_KEY: set it in the environment or in Settings › Sandboxes\.$/m,
      modal: /^deepdesk run: Modal needs MODAL_TOKEN_ID and MODAL_TOKEN_SECRET: set them in the environment or in Settings › Sandboxes\.$/m,
      deno: /^deepdesk run: Deno needs DENO_DEPLOY_TOKEN: set it in the environment or in Settings › Sandboxes\.$/m,
    };
    for (const [provider, line] of Object.entries(lines)) {
      const run = await t.deepdesk(['run', '--sandbox', provider, ...model(), 'hello'], NO_PROVIDER_KEYS);
      expect(run.stderr).toMatch(line);
      expect(run.code).toBe(2);
    }
    expect(existsSync(join(t.dataDir, 'worktrees'))).toBe(false);
    expect(t.server.requests).toHaveLength(0);
  });

  it('a start that cannot be made (the key refused, the service down) is refused before anything is made: no worktree, branch or record', async () => {
    project();
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      ['the key refused', { ...env(), DAYTONA_API_KEY: 'not-the-key' }, /Daytona refused the API key \(DAYTONA_API_KEY\)/],
      ['the service down', { ...env(), DAYTONA_API_URL: 'http://127.0.0.1:9/api' }, /Cannot reach Daytona at http:\/\/127\.0\.0\.1:9\/api/],
    ];
    for (const [what, withEnv, said] of cases) {
      t.server.push({ text: 'never' });
      const run = await t.deepdesk(['run', '--sandbox', 'daytona', ...model(), '--approve', 'auto', 'hello'], withEnv);
      expect({ what, code: run.code === 0 }).toEqual({ what, code: false });
      expect(run.stderr).toMatch(said);
      expect(git('branch', '--list', 'deepdesk/*').trim()).toBe('');
      expect(existsSync(join(t.dataDir, 'worktrees')) ? readdirSync(join(t.dataDir, 'worktrees')) : []).toEqual([]);
      expect(standin.boxes.size).toBe(0);
    }
    // `sandboxes ls` with the service down: the error, never "No sandboxes".
    const ls = await t.deepdesk(['sandboxes', 'ls', '--data-dir', t.dataDir], { ...env(), DAYTONA_API_URL: 'http://127.0.0.1:9/api' });
    expect(ls.code).toBe(1);
    expect(ls.stdout).not.toContain('No sandboxes');
    expect(ls.stderr).toMatch(/Cannot reach Daytona/);
  });

  it('sandboxes rm frees the thread: it carries on on this computer, in its worktree; its time is in the ledger up to its end', async () => {
    project();
    t.server.push({ toolCalls: [{ name: 'execute', args: { command: 'echo up > up.txt' } }] }, { text: 'first' });
    const first = await t.deepdesk(['run', '--sandbox', 'daytona', ...model(), '--approve', 'auto', 'first'], env());
    expect(first.code).toBe(0);
    const id = [...standin.boxes.keys()][0]!;
    const wt = /worktree \S+ at (\S+) /.exec(first.stderr)![1]!;
    const thread = (JSON.parse((await t.deepdesk(['sandboxes', 'ls', '--json', '--data-dir', t.dataDir], env())).stdout) as Array<{ threads: string[] }>)[0]!.threads[0]!;
    // Deleted by the service, then `sandboxes rm`: forgotten, the thread freed.
    standin.vanish(id);
    const rm = await t.deepdesk(['sandboxes', 'rm', id, '--data-dir', t.dataDir], env());
    expect(rm.code).toBe(0);
    expect(rm.stdout).toContain('its threads carry on on this computer');
    t.server.push({ toolCalls: [{ name: 'execute', args: { command: 'echo here > here.txt' } }] }, { text: 'carried on here' });
    const again = await t.deepdesk(['run', '--thread', thread, '--folder', wt, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, '--approve', 'auto', 'go on'], env());
    expect(again.stderr).not.toContain('sandbox');
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('carried on here\n');
    expect(readFileSync(join(wt, 'here.txt'), 'utf8')).toBe('here\n');
    expect(readFileSync(join(wt, 'up.txt'), 'utf8')).toBe('up\n');
  });

  it('a thread whose sandbox is gone goes on in a new sandbox from its worktree (run --sandbox --folder WORKTREE --thread)', async () => {
    project();
    t.server.push({ toolCalls: [{ name: 'execute', args: { command: 'echo up > up.txt' } }] }, { text: 'first' });
    const first = await t.deepdesk(['run', '--sandbox', 'daytona', ...model(), '--approve', 'auto', 'first'], env());
    expect(first.code).toBe(0);
    const id = [...standin.boxes.keys()][0]!;
    const wt = /worktree \S+ at (\S+) /.exec(first.stderr)![1]!;
    const thread = (JSON.parse((await t.deepdesk(['sandboxes', 'ls', '--json', '--data-dir', t.dataDir], env())).stdout) as Array<{ threads: string[] }>)[0]!.threads[0]!;
    standin.vanish(id);
    const asked = t.server.requests.length;
    const stuck = await t.deepdesk(['run', '--thread', thread, '--folder', wt, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, '--approve', 'auto', 'go on'], env());
    expect(stuck.code).not.toBe(0);
    expect(stuck.stderr).toMatch(/is gone.*continue it in a new sandbox .*or on this computer \(Continue on this computer, or deepdesk sandboxes rm /);
    expect(t.server.requests.length).toBe(asked);
    t.server.push({ toolCalls: [{ name: 'execute', args: { command: 'cat up.txt' } }] }, { text: 'in a new one' });
    const again = await t.deepdesk(['run', '--sandbox', 'daytona', '--thread', thread, '--folder', wt, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, '--approve', 'auto', 'go on'], env());
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('in a new one\n');
    expect(standin.boxes.size).toBe(1);
    expect([...standin.boxes.keys()][0]).not.toBe(id);
    expect(toolResults().at(-1)).toContain('up');
  });
});
