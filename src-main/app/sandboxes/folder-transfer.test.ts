// The folder goes up as git sees it and the agent's changes come back through the layer
// check, over a real bubblewrap box (the in-process provider: no provider wire involved).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LocalBoxProvider } from '../../core/sandbox-providers/testing/local-box-provider';
import type { ProviderSandbox } from '../../core/sandbox-providers/provider';
import { resolvePolicy } from '../../core/sandbox/policy';
import { folderSandboxPolicy } from '../../core/sandbox/protected-entry-files';
import { planUpload, secretReason, uploadFolder, uploadSummary } from './folder-upload';
import { bringBack } from './bring-back';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

function repo(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-transfer-')));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  git('init', '-q');
  fs.writeFileSync(path.join(dir, 'a.txt'), 'alpha\n');
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src', 'main.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  fs.writeFileSync(path.join(dir, '.gitignore'), 'build/\n');
  git('add', '-A');
  git('commit', '-qm', 'base');
  fs.writeFileSync(path.join(dir, 'new-untracked.txt'), 'untracked\n');
  fs.mkdirSync(path.join(dir, 'build'));
  fs.writeFileSync(path.join(dir, 'build', 'out.o'), 'ignored');
  fs.writeFileSync(path.join(dir, '.env'), 'API_KEY=secret');
  fs.writeFileSync(path.join(dir, 'big.bin'), Buffer.alloc(3000));
  fs.symlinkSync('a.txt', path.join(dir, 'link-to-a'));
  return dir;
}

async function sandboxFor(): Promise<{ provider: LocalBoxProvider; sandbox: ProviderSandbox }> {
  const provider = new LocalBoxProvider();
  cleanup.push(() => provider.dispose());
  return { provider, sandbox: await provider.create({ labels: {} }) };
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-data-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('the folder goes up as git sees it', () => {
  it('sends tracked and untracked-not-ignored files, never .git, secrets or what is over the cap', async () => {
    const folder = repo();
    const plan = await planUpload(folder, { dataDir, env: process.env, limits: { maxFileBytes: 2000, maxTotalBytes: 1 << 20 } });
    expect(plan.files.map((f) => f.rel)).toEqual(['.gitignore', 'a.txt', 'link-to-a', 'new-untracked.txt', 'src/main.sh']);
    expect(plan.leftOut).toEqual([
      { rel: '.env', why: 'a dotenv file' },
      { rel: 'big.bin', why: 'over the 2 KB file cap', size: 3000 },
    ]);
    expect(uploadSummary(plan, 'the Daytona sandbox x')).toMatch(/^Uploaded 5 files \(.*\) to the Daytona sandbox x; left out: \.env \(a dotenv file\), big\.bin \(3 KB, over the 2 KB file cap\)\./);
    const { sandbox } = await sandboxFor();
    const manifest = await uploadFolder(sandbox, folder, plan);
    const r = await sandbox.execute('ls -la; cat a.txt; ./src/main.sh; readlink link-to-a; test -e .env || echo no-env; test -e .git || echo no-git', { timeoutMs: 10_000 });
    expect(r.output).toContain('alpha\nhi\na.txt\nno-env\nno-git\n');
    expect(Object.keys(manifest).sort()).toEqual(plan.files.map((f) => f.rel));
  });

  it('sends nothing from outside the folder through a tracked path whose folder is now a link', async () => {
    const folder = repo();
    const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-outside-')));
    cleanup.push(() => fs.rmSync(outside, { recursive: true, force: true }));
    fs.writeFileSync(path.join(outside, 'main.sh'), 'private\n');
    fs.rmSync(path.join(folder, 'src'), { recursive: true });
    fs.symlinkSync(outside, path.join(folder, 'src'));
    const plan = await planUpload(folder, { dataDir, env: process.env });
    expect(plan.files.map((f) => f.rel)).not.toContain('src/main.sh');
    expect(plan.leftOut).toContainEqual({ rel: 'src/main.sh', why: 'leads outside the folder' });
  });

  it('leaves the largest files behind when the folder is over the total cap, and says how to send them', async () => {
    const folder = repo();
    const plan = await planUpload(folder, { dataDir, env: process.env, limits: { maxFileBytes: 1 << 20, maxTotalBytes: 100 } });
    expect(plan.leftOut.map((l) => l.rel)).toContain('big.bin');
    expect(uploadSummary(plan, 'x')).toMatch(/To leave more out, add it to the folder’s \.gitignore; to send more, raise Upload cap \(MB\) in Settings › Sandboxes\./);
  });
});

describe('what never goes up', () => {
  it('leaves §7’s secrets out wherever they sit in the folder, and key files by name', () => {
    const data = '/data';
    const home = '/home/pat';
    const why = (rel: string) => secretReason(rel, `/work/${rel}`, data, home);
    expect(why('.ssh/id_ed25519')).toBeDefined();
    expect(why('deploy/.aws/credentials')).toBe('cloud credentials');
    expect(why('.config/gh/hosts.yml')).toBe('GitHub credentials');
    expect(why('profiles/.mozilla/firefox/key4.db')).toBe('a browser profile');
    expect(why('.netrc')).toBe('login credentials');
    expect(why('docker/.docker/config.json')).toBe('registry credentials');
    // A .pem is judged by its content (secretContentReason): a public key or certificate may go up.
    expect(why('certs/server.key')).toBe('a private key');
    expect(why('.env.production')).toBe('a dotenv file');
    expect(why('.env.example')).toBeUndefined();
    expect(why('src/sshd.ts')).toBeUndefined();
    expect(why('docs/.config/notes.md')).toBeUndefined();
    // A link's real path under a home secret or the data folder (not its worktrees).
    expect(secretReason('notes.txt', '/home/pat/.ssh/config', data, home)).toBe('SSH keys');
    expect(secretReason('a.txt', '/data/deepdesk.db', data, home)).toBe("Deepdesk's data folder");
    expect(secretReason('a.txt', '/data/worktrees/x/a.txt', data, home)).toBeUndefined();
  });
});

describe('changes come back through the layer check', () => {
  it('brings back edits, new files, modes, links and removals, and refuses what a local command could not leave', async () => {
    const folder = repo();
    const plan = await planUpload(folder, { dataDir, env: process.env });
    const { sandbox, provider } = await sandboxFor();
    const manifest = await uploadFolder(sandbox, folder, plan);
    await sandbox.execute(
      [
        'printf "changed\\n" > a.txt',
        'mkdir -p lib && printf "new\\n" > lib/new.txt',
        'chmod -x src/main.sh',
        'rm new-untracked.txt',
        'ln -s lib/new.txt newlink',
        'mkdir -p .deepdesk && echo "{}" > .deepdesk/settings.json',
        'mkdir -p sub/.git/hooks && echo "touch /tmp/pwned" > sub/.git/hooks/post-checkout',
        'printf x > suid && chmod 4755 suid',
        'mkfifo pipe',
      ].join(' && '),
      { timeoutMs: 10_000 },
    );
    const home = os.homedir();
    const policy = resolvePolicy(folderSandboxPolicy({ projectDir: folder, dataDir }), { homes: [home] });
    const calls = provider.calls.download;
    const back = await bringBack({ sandbox, folder, manifest, home, protectedPaths: policy.protectedPaths });
    expect(provider.calls.download - calls).toBe(1);
    expect(fs.readFileSync(path.join(folder, 'a.txt'), 'utf8')).toBe('changed\n');
    expect(fs.readFileSync(path.join(folder, 'lib/new.txt'), 'utf8')).toBe('new\n');
    expect(fs.statSync(path.join(folder, 'src/main.sh')).mode & 0o111).toBe(0);
    expect(fs.existsSync(path.join(folder, 'new-untracked.txt'))).toBe(false);
    expect(fs.readlinkSync(path.join(folder, 'newlink'))).toBe('lib/new.txt');
    // Refused by effect: none of these reached the folder.
    expect(fs.existsSync(path.join(folder, '.deepdesk'))).toBe(false);
    expect(fs.existsSync(path.join(folder, 'sub/.git/hooks/post-checkout'))).toBe(false);
    expect(fs.existsSync(path.join(folder, 'suid'))).toBe(false);
    expect(fs.existsSync(path.join(folder, 'pipe'))).toBe(false);
    expect(fs.existsSync(path.join(folder, '.env'))).toBe(true); // never sent, never removed
    const blocked = back.blocked.map((b) => ('path' in b ? path.relative(folder, b.path) : b.host));
    expect(blocked).toEqual(expect.arrayContaining(['.deepdesk/settings.json', 'suid', 'pipe']));
    expect(blocked.some((b) => b.startsWith('sub'))).toBe(true);
    // Nothing new: a second bring-back downloads nothing and changes nothing.
    const again = await bringBack({ sandbox, folder, manifest: back.manifest, home, protectedPaths: policy.protectedPaths });
    expect(again.applied).toEqual([]);
    expect(provider.calls.download - calls).toBe(1);
  });

  it('names the sandbox chose are data: line breaks and look-alike listings reach nothing outside the worktree', async () => {
    const folder = repo();
    const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-escape-')));
    cleanup.push(() => fs.rmSync(outside, { recursive: true, force: true }));
    const target = `${'../'.repeat(40)}${outside.slice(1)}/escaped`;
    const { sandbox } = await sandboxFor();
    const manifest = await uploadFolder(sandbox, folder, await planUpload(folder, { dataDir, env: process.env }));
    // Names with line breaks, and names shaped like the listing's own lines, markers and paths.
    await sandbox.execute(
      [
        `T=${JSON.stringify(target)}`,
        `ln -s "$T" "$(printf 'x\\ny')"`,
        `ln -s "$T" "$(printf 'z\\nw')"`,
        `mkdir -p "$(printf 'd\\n1 1 ..')" && echo evil > "$(printf 'd\\n1 1 ..')/escaped"`,
        `echo s > "@@deepdesk-section@@"`,
        `echo fine > fine.txt`,
      ].join(' && '),
      { timeoutMs: 10_000 },
    );
    const home = os.homedir();
    const back = await bringBack({ sandbox, folder, manifest, home, protectedPaths: [] });
    // Nothing outside the worktree was made; the ordinary change came back.
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(fs.existsSync(path.join(path.dirname(folder), 'escaped'))).toBe(false);
    expect(fs.readFileSync(path.join(folder, 'fine.txt'), 'utf8')).toBe('fine\n');
    expect(back.applied).toContain('fine.txt');
    for (const rel of back.applied) expect(rel.split('/')).not.toContain('..');
    // Look-alike names change nothing else: no mode, no set-id verdict, no removal.
    expect(fs.statSync(path.join(folder, 'a.txt')).mode & 0o111).toBe(0);
    expect(fs.statSync(path.join(folder, 'src/main.sh')).mode & 0o111).not.toBe(0);
    expect(fs.existsSync(path.join(folder, 'new-untracked.txt'))).toBe(true);
    expect(fs.readFileSync(path.join(folder, '@@deepdesk-section@@'), 'utf8')).toBe('s\n');
    // The names with line breaks are said, and not brought back.
    const said = back.blocked.map((b) => ('path' in b ? [path.relative(folder, b.path), b.why] : [b.host, '']));
    expect(said).toEqual(expect.arrayContaining([['x\ny', expect.stringMatching(/line break/)], ['z\nw', expect.stringMatching(/line break/)], ['d\n1 1 ..', expect.stringMatching(/line break/)]]));
    expect(fs.readdirSync(folder).some((name) => name.includes('\n'))).toBe(false);
  });

  it('brings back only the paths a file tool named', async () => {
    const folder = repo();
    const { sandbox } = await sandboxFor();
    const manifest = await uploadFolder(sandbox, folder, await planUpload(folder, { dataDir, env: process.env }));
    await sandbox.execute('echo one > a.txt && echo two > other.txt', { timeoutMs: 10_000 });
    const back = await bringBack({ sandbox, folder, manifest, home: os.homedir(), protectedPaths: [], only: ['a.txt'] });
    expect(back.applied).toEqual(['a.txt']);
    expect(fs.existsSync(path.join(folder, 'other.txt'))).toBe(false);
  });
});
