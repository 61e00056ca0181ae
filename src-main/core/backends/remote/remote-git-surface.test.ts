// Nothing a sandboxed command on a remote folder leaves behind runs later when the person
// uses git on the remote (SPEC §7, §13), judged by effect against the real test sshd: each
// attack runs in the remote bubblewrap, then the person's own git runs on the remote over
// ssh (`git status`, `git diff`, `git checkout`, `git commit`, in the places the attack
// prepared) and a marker program the attack pointed git at must not have run.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import type { Sandbox } from '../../sandbox/types';
import { runRemoteCommand } from './remote-exec';
import { createRemoteSandbox } from './remote-sandbox';
import { SshConnection } from './ssh-connection';
import { shQuote } from '../../text/shell-quote';
import { parseSshTarget } from './ssh-target';
import { startTestSshd, type TestSshd } from './testing/sshd';

let sshd: TestSshd;
let connection: SshConnection;
let root: string;
let project: string;
let marks: string;
let sandbox: Sandbox;
let probe = 0;

beforeAll(async () => {
  sshd = await startTestSshd();
  connection = new SshConnection({ target: parseSshTarget(sshd.folderUrl('/tmp')), controlDir: `${sshd.dir}/cm`, sshCommand: sshd.sshCommand });
}, 30_000);

afterAll(async () => {
  await connection?.close();
  await sshd?.dispose();
});

beforeEach(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-rgit-')));
  project = join(root, 'project');
  marks = join(root, 'marks');
  for (const dir of [project, marks]) mkdirSync(dir);
  writeFileSync(join(project, 'README.md'), 'hello\n');
  const made = await createRemoteSandbox(connection, { projectDir: project, dataDir: '' });
  if (!made) throw new Error('no remote sandbox');
  sandbox = made;
  return () => rmSync(root, { recursive: true, force: true });
});

const GIT_ENV = 'GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0 GIT_AUTHOR_NAME=P GIT_AUTHOR_EMAIL=p@x GIT_COMMITTER_NAME=P GIT_COMMITTER_EMAIL=p@x';

/** The person's git on the remote, over ssh, outside any sandbox. */
async function remoteGit(cwd: string, args: string): Promise<{ code: number; stdout: string }> {
  const r = await connection.run(`cd ${shQuote(cwd)} && ${GIT_ENV} git ${args}`, { timeoutMs: 30_000 });
  return { code: r.code, stdout: r.stdout.toString('utf8') };
}

/** Sets a repository up as the person would (on this machine, which is the remote). */
function initRepo(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=P', '-c', 'user.email=p@x', '-c', 'init.defaultBranch=main', ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  writeFileSync(join(dir, 'f.txt'), 'f\n');
  git('add', '-A');
  git('commit', '-qm', 'first');
}

/** What the person does next in `cwd` on the remote: every failure is fine, only the marker counts. */
async function personUsesGit(cwd: string): Promise<void> {
  probe++;
  for (const args of ['status', 'diff', `checkout -q -b probe-${probe}`, `commit --allow-empty -qm probe${probe}`]) await remoteGit(cwd, args);
}

/** Shell text that writes the marker program into the folder (the sandbox can write there). */
function evilProgram(name = 'evil.sh'): string {
  return `printf '#!/bin/sh\\ntouch ${join(marks, 'ran')}-"$(basename "$0")"\\nexit 0\\n' > ${name} && chmod +x ${name}`;
}

function ran(): string[] {
  return readdirSync(marks);
}

const run = (command: string) => runRemoteCommand(connection, command, { cwd: project, timeoutS: 60, sandbox });

describe('a sandboxed command on a remote folder cannot redirect the person\'s git', () => {
  it("a sub-repository's .git folder swapped for a .git file pointing at a copy with core.fsmonitor", async () => {
    initRepo(join(project, 'sub'));
    const result = await run(
      `${evilProgram()}; cp -r sub/.git ev; git --git-dir=ev config core.fsmonitor "$PWD/evil.sh"; mv sub/.git sub/.git-old; echo "gitdir: $PWD/ev" > sub/.git; true`,
    );
    await personUsesGit(join(project, 'sub'));
    expect(ran()).toEqual([]);
    expect(result.sandboxBlocked).toMatch(/^\[Sandbox blocked/);
    expect(result.sandboxBlocked).toContain('/sub/.git');
  });

  it('a .git file pointing outside the folder', async () => {
    initRepo(join(root, 'elsewhere'));
    execFileSync('git', ['config', 'core.fsmonitor', join(project, 'evil.sh')], { cwd: join(root, 'elsewhere') });
    mkdirSync(join(project, 'sub'));
    const result = await run(`${evilProgram()}; echo "gitdir: ${join(root, 'elsewhere', '.git')}" > sub/.git; true`);
    await personUsesGit(join(project, 'sub'));
    expect(ran()).toEqual([]);
    expect(existsSync(join(project, 'sub', '.git'))).toBe(false);
    expect(result.sandboxBlocked).toContain('/sub/.git');
  });

  it("a sub-repository's commondir pointing at a copy with core.fsmonitor", async () => {
    initRepo(join(project, 'sub'));
    const result = await run(`${evilProgram()}; cp -r sub/.git ev; git --git-dir=ev config core.fsmonitor "$PWD/evil.sh"; echo "$PWD/ev" > sub/.git/commondir; true`);
    await personUsesGit(join(project, 'sub'));
    expect(ran()).toEqual([]);
    expect(existsSync(join(project, 'sub', '.git', 'commondir'))).toBe(false);
    expect(result.sandboxBlocked).toContain('/sub/.git/commondir');
  });

  it("a sub-repository's config and hooks", async () => {
    initRepo(join(project, 'sub'));
    const configBefore = readFileSync(join(project, 'sub', '.git', 'config'), 'utf8');
    const result = await run(`${evilProgram()}; git -C sub config core.fsmonitor "$PWD/evil.sh"; cp evil.sh sub/.git/hooks/pre-commit; cp evil.sh sub/.git/hooks/post-checkout; true`);
    await personUsesGit(join(project, 'sub'));
    expect(ran()).toEqual([]);
    expect(readFileSync(join(project, 'sub', '.git', 'config'), 'utf8')).toBe(configBefore);
    expect(result.sandboxBlocked).toContain('/sub/.git/');
  });

  it("the folder's own commondir and config.worktree", async () => {
    initRepo(project);
    const result = await run(
      `${evilProgram()}; cp -r .git ev; git --git-dir=ev config core.fsmonitor "$PWD/evil.sh"; echo ../ev > .git/commondir; printf '[core]\\n\\tfsmonitor = %s/evil.sh\\n' "$PWD" > .git/config.worktree; true`,
    );
    await personUsesGit(project);
    expect(ran()).toEqual([]);
    expect(existsSync(join(project, '.git', 'commondir'))).toBe(false);
    expect(result.sandboxBlocked).toContain('/.git/commondir');
  });

  it('a nested repository made during the command, with a hook and core.fsmonitor; it stays usable', async () => {
    initRepo(project);
    await run(`${evilProgram()} && git init -q made && git -C made config core.fsmonitor "$PWD/evil.sh" && cp evil.sh made/.git/hooks/pre-commit && cp evil.sh made/.git/hooks/post-checkout`);
    await personUsesGit(join(project, 'made'));
    expect(ran()).toEqual([]);
    expect((await remoteGit(join(project, 'made'), 'rev-parse --is-inside-work-tree')).stdout.trim()).toBe('true');
  });

  it("a submodule's git folder (.git/modules/NAME): config and hooks", async () => {
    initRepo(join(root, 'other'));
    initRepo(project);
    execFileSync('git', ['-c', 'protocol.file.allow=always', 'submodule', '-q', 'add', join(root, 'other'), 'mod'], { cwd: project, stdio: 'ignore' });
    await run(`${evilProgram()}; cp evil.sh .git/modules/mod/hooks/post-checkout; git --git-dir=.git/modules/mod config core.fsmonitor "$PWD/evil.sh"; true`);
    await personUsesGit(join(project, 'mod'));
    expect(ran()).toEqual([]);
  });

  it('a protected path made where its parent folder did not exist (.claude/skills)', async () => {
    const result = await run('mkdir -p .claude/skills/x && echo "---" > .claude/skills/x/SKILL.md; true');
    expect(existsSync(join(project, '.claude', 'skills'))).toBe(false);
    expect(result.sandboxBlocked).toContain('.claude/skills');
  });

  it('a protected path reached through a link the command made: the link goes, what it leads to outside stays', async () => {
    const personal = join(root, 'personal', '.claude', 'skills');
    mkdirSync(personal, { recursive: true });
    writeFileSync(join(personal, 'keep.md'), 'mine\n');
    const result = await run(`ln -s ${join(root, 'personal', '.claude')} .claude; true`);
    expect(readFileSync(join(personal, 'keep.md'), 'utf8')).toBe('mine\n');
    expect(existsSync(join(project, '.claude'))).toBe(false);
    expect(result.sandboxBlocked).toContain('.claude/skills');
  });

  it('a run whose check the lost connection stopped is checked before the next one runs', async () => {
    initRepo(join(project, 'sub'));
    let seen = '';
    let started!: () => void;
    const startedSeen = new Promise<void>((resolve) => (started = resolve));
    // The lost run's folder on the remote (this machine's /tmp): removed before the next run.
    const runFolders: string[] = [];
    onTestFinished(() => runFolders.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
    const watched: Sandbox = {
      kind: sandbox.kind,
      policy: sandbox.policy,
      prepare: async (spec, options) => {
        const prepared = await sandbox.prepare(spec, options);
        runFolders.push(dirname(prepared.env.TMPDIR!));
        return prepared;
      },
    };
    const pending = runRemoteCommand(connection, `${evilProgram()}; cp -r sub/.git ev; git --git-dir=ev config core.fsmonitor "$PWD/evil.sh"; echo "$PWD/ev" > sub/.git/commondir; echo started; sleep 60`, {
      cwd: project,
      timeoutS: 60,
      sandbox: watched,
      onData: (chunk) => {
        seen += chunk;
        if (seen.includes('started')) started();
      },
    });
    await startedSeen;
    await sshd.stop();
    const lost = await pending;
    await sshd.start();
    expect(lost.connectionError).toBeDefined();
    const next = await run('true');
    expect(next.sandboxBlocked).toContain('/sub/.git/commondir');
    expect(runFolders.filter((dir) => existsSync(dir))).toEqual([]);
    await personUsesGit(join(project, 'sub'));
    expect(ran()).toEqual([]);
  });

  it("a setuid file the person had keeps its bit; ones the command made lose theirs, and its fifo goes", async () => {
    writeFileSync(join(project, 'mine'), 'x\n');
    chmodSync(join(project, 'mine'), 0o4755);
    const result = await run('echo x > made && chmod 4755 made && mkdir -p deep && cp /bin/sh deep/tool && chmod 6755 deep/tool && mkdir sg && chmod 2755 sg && mkfifo pipe; true');
    const setId = (rel: string) => lstatSync(join(project, rel)).mode & 0o6000;
    expect({ mine: setId('mine'), made: setId('made'), tool: setId('deep/tool'), sg: setId('sg'), pipe: existsSync(join(project, 'pipe')) }).toEqual({ mine: 0o4000, made: 0, tool: 0, sg: 0, pipe: false });
    expect(result.sandboxBlocked).toMatch(/^\[Sandbox blocked/);
    expect(result.sandboxBlocked).toContain('made (a setuid file: its bit was cleared)');
    expect(result.sandboxBlocked).not.toContain('mine');
  });

  it('a setuid file inside .git, and one in a folder the command made unreadable, do not go unseen', async () => {
    initRepo(project);
    const result = await run('cp /bin/sh .git/objects/tool && chmod 4755 .git/objects/tool && mkdir shut && cp /bin/sh shut/tool && chmod 4755 shut/tool && chmod 000 shut; true');
    chmodSync(join(project, 'shut'), 0o755);
    expect(lstatSync(join(project, '.git', 'objects', 'tool')).mode & 0o6000).toBe(0);
    expect(result.sandboxBlocked).toContain('/.git/objects/tool (a setuid file: its bit was cleared)');
    // Cleared where the walk can enter (as root it can), else reported as not checked.
    const shut = lstatSync(join(project, 'shut', 'tool')).mode & 0o6000;
    expect(result.sandboxBlocked).toContain(shut === 0 ? '/shut/tool (a setuid file: its bit was cleared)' : '/shut (could not be checked for setuid, setgid and device files (EACCES))');
  });

  it('normal git work still runs inside: status, diff, add, commit, branch, init', async () => {
    initRepo(project);
    writeFileSync(join(project, 'f.txt'), 'changed\n');
    const result = await run(`git status --short && git diff --stat && git add -A && git -c user.name=A -c user.email=a@x commit -qm second && git branch feature && git init -q fresh && git log --format=%s`);
    expect(result.exitCode).toBe(0);
    expect(result.output).toContain('second');
    expect(result.sandboxBlocked).toBeUndefined();
    expect((await remoteGit(project, 'branch --list feature')).stdout).toContain('feature');
    expect((await remoteGit(join(project, 'fresh'), 'rev-parse --git-dir')).stdout.trim()).toBe('.git');
  });
});
