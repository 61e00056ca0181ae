// Deepdesk as an ACP client (SPEC §22), by effect, with the scripted ACP agent in the real
// bubblewrap sandbox: writes through the backend after the person allowed once; a deny rule
// and a protected path answer no without asking (the file unchanged); the thread's mode decides
// as for Deepdesk's own tools (edit: its writes land unasked); a write through a link into
// .git or .claude is refused as the direct path is, a link swapped in after the check too; what
// the agent does in its own process is held by the sandbox (a file outside the folder
// unchanged, the planted ~/.ssh/id_rsa unreadable); terminals run as a sandboxed execute, their
// line as shown and their env the process's, and a refused one runs nothing; the turn ends
// after late updates; stop leaves no process.
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalShellBackend } from '../backends/filesystem/local-shell';
import { createSandbox, detectSandbox } from '../sandbox';
import { folderSandboxPolicy } from '../sandbox/protected-entry-files';
import { DEFAULT_RULES, type PermissionRule } from '../agent/permissions/rules';
import type { ApprovalMode } from '../agent/permissions/modes';
import { AcpClientSession, type AgentApprovalRequest, type SessionUpdate } from './acp-client';
import { startAgentProcess } from './agent-process';

const AGENT = join(__dirname, 'testing', 'scripted-acp-agent.mjs');

/** The folder's backend, with a moment just before a write (where a test swaps a link in). */
class SwappingBackend extends LocalShellBackend {
  beforeWrite: (() => void) | undefined;

  override async write(path: string, content: string): ReturnType<LocalShellBackend['write']> {
    this.beforeWrite?.();
    this.beforeWrite = undefined;
    return super.write(path, content);
  }
}

function said(updates: SessionUpdate[]): string {
  return updates
    .map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : ''))
    .filter(Boolean)
    .join('\n');
}

describe('ACP client: the scripted agent in the sandbox', async () => {
  const available = (await detectSandbox()).available;
  let root: string;
  let folder: string;
  let dataDir: string;
  let fakeHome: string;
  let outsideFile: string;
  let session: AcpClientSession;
  let asked: AgentApprovalRequest[];
  let answer: boolean;
  let rules: PermissionRule[];
  let mode: ApprovalMode;
  let backend: SwappingBackend;
  const realHome = process.env.HOME;

  beforeAll(async () => {
    if (!available) return;
    root = realpathSync(mkdtempSync(join(tmpdir(), 'acp-client-')));
    folder = join(root, 'project');
    dataDir = join(root, 'data');
    fakeHome = join(root, 'home');
    mkdirSync(folder);
    mkdirSync(join(folder, '.git'));
    writeFileSync(join(folder, '.git', 'config'), '[core]\n');
    mkdirSync(join(folder, '.git', 'hooks'));
    mkdirSync(join(folder, '.claude'));
    writeFileSync(join(folder, '.claude', 'settings.json'), '{}');
    mkdirSync(dataDir);
    mkdirSync(join(fakeHome, '.ssh'), { recursive: true });
    writeFileSync(join(fakeHome, '.ssh', 'id_rsa'), 'PLANTED-SECRET');
    mkdirSync(join(root, 'outside'));
    outsideFile = join(root, 'outside', 'marker.txt');
    writeFileSync(outsideFile, 'original');
    writeFileSync(join(folder, 'keep.txt'), 'keep');
    process.env.HOME = fakeHome;
    const sandbox = await createSandbox(folderSandboxPolicy({ projectDir: folder, dataDir }));
    backend = new SwappingBackend({ rootDir: folder, ...(sandbox ? { sandbox } : {}) });
    const proc = await startAgentProcess({
      command: process.execPath,
      args: [AGENT],
      env: {},
      folder,
      dataDir,
      privateHome: join(dataDir, 'agents', 'homes', 'scripted'),
      droppedEnv: [],
    });
    asked = [];
    answer = true;
    rules = [...DEFAULT_RULES];
    mode = 'ask';
    session = new AcpClientSession(proc, {
      agent: 'Scripted',
      folder,
      backend,
      execute: (command, options) => backend.execute(command, options),
      rules: () => rules,
      mode: () => mode,
      ask: async (request) => {
        asked.push(request);
        return answer;
      },
    });
    await session.initialize();
    await session.newSession();
  }, 120_000);

  afterAll(async () => {
    process.env.HOME = realHome;
    if (!available) return;
    await session?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it.skipIf(!available)('keeps what initialize reported', () => {
    expect(session.initializeResponse?.agentInfo?.name).toBe('scripted-acp-agent');
    expect(session.initializeResponse?.agentCapabilities?.loadSession).toBe(false);
  });

  it.skipIf(!available)('a write the person allows once goes through the backend, and the agent is named', async () => {
    asked.length = 0;
    const turn = await session.prompt(`write ${join(folder, 'a.txt')} hello there`);
    expect(readFileSync(join(folder, 'a.txt'), 'utf8')).toBe('hello there');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ agent: 'Scripted', operation: { tool: 'edit_file', paths: ['/a.txt'] } });
    // "allow once", never the agent's own "always".
    expect(said(turn.updates)).toContain('permission: once; wrote');
    expect(turn.stopReason).toBe('end_turn');
  }, 60_000);

  it.skipIf(!available)('the person saying no leaves the file unchanged', async () => {
    asked.length = 0;
    answer = false;
    const turn = await session.prompt(`write ${join(folder, 'keep.txt')} changed`);
    answer = true;
    expect(asked).toHaveLength(1);
    expect(readFileSync(join(folder, 'keep.txt'), 'utf8')).toBe('keep');
    expect(said(turn.updates)).toContain('permission: no');
  }, 60_000);

  it.skipIf(!available)('a deny rule answers no without asking: the file unchanged', async () => {
    asked.length = 0;
    rules = [{ operations: ['write', 'edit'], paths: ['/keep.txt'], decision: 'deny', description: 'keep.txt is mine' }, ...DEFAULT_RULES];
    const turn = await session.prompt(`write ${join(folder, 'keep.txt')} changed`);
    rules = [...DEFAULT_RULES];
    expect(asked).toHaveLength(0);
    expect(readFileSync(join(folder, 'keep.txt'), 'utf8')).toBe('keep');
    expect(said(turn.updates)).toContain('permission: no');
  }, 60_000);

  it.skipIf(!available)('an allow rule answers yes (once) without asking', async () => {
    asked.length = 0;
    rules = [{ operations: ['write', 'edit'], paths: ['/allowed.txt'], decision: 'allow' }, ...DEFAULT_RULES];
    const turn = await session.prompt(`write ${join(folder, 'allowed.txt')} yes`);
    rules = [...DEFAULT_RULES];
    expect(asked).toHaveLength(0);
    expect(readFileSync(join(folder, 'allowed.txt'), 'utf8')).toBe('yes');
    expect(said(turn.updates)).toContain('permission: once');
  }, 60_000);

  it.skipIf(!available)('a protected path answers no without asking: .git/config unchanged', async () => {
    asked.length = 0;
    const turn = await session.prompt(`write ${join(folder, '.git', 'config')} [core]\\n\\thooksPath=/tmp`);
    expect(asked).toHaveLength(0);
    expect(readFileSync(join(folder, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect(said(turn.updates)).toContain('permission: no');
  }, 60_000);

  it.skipIf(!available)("the thread's mode decides as for Deepdesk's own: in edit mode its write lands unasked, a protected path is still refused", async () => {
    asked.length = 0;
    mode = 'edit';
    try {
      const turn = await session.prompt(`write ${join(folder, 'edited.txt')} unasked ;; write ${join(folder, '.git', 'config')} [core] ;; fs-write ${join(folder, 'direct.txt')} direct`);
      expect(asked).toHaveLength(0);
      expect(readFileSync(join(folder, 'edited.txt'), 'utf8')).toBe('unasked');
      expect(readFileSync(join(folder, 'direct.txt'), 'utf8')).toBe('direct');
      expect(readFileSync(join(folder, '.git', 'config'), 'utf8')).toBe('[core]\n');
      expect(said(turn.updates)).toMatch(/permission: once; wrote .*edited\.txt\npermission: no\nfs-write ok/);
    } finally {
      mode = 'ask';
    }
    // In ask mode a write no permission request covered asks.
    const turn = await session.prompt(`fs-write ${join(folder, 'direct.txt')} asked`);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.operation).toMatchObject({ tool: 'write_file', paths: ['/direct.txt'] });
    expect(said(turn.updates)).toContain('fs-write ok');
  }, 60_000);

  it.skipIf(!available)('a write through a link the agent made into .git, .git/hooks or .claude is refused as the direct path is, in any mode, unasked', async () => {
    const made = await session.prompt('own-run ln -s .git g && ln -s .git/hooks hk && ln -s .claude cl');
    expect(said(made.updates)).toContain('own-run exit 0');
    expect(lstatSync(join(folder, 'hk')).isSymbolicLink()).toBe(true);
    for (const m of ['edit', 'auto', 'ask'] as const) {
      asked.length = 0;
      mode = m;
      try {
        const turn = await session.prompt(
          [`fs-write ${join(folder, 'g', 'config')} [core]hooksPath=/tmp`, `fs-write ${join(folder, 'hk', 'pre-commit')} pwned`, `fs-write ${join(folder, 'cl', 'settings.json')} pwned`, `write ${join(folder, 'g', 'config')} pwned`].join(' ;; '),
        );
        const text = said(turn.updates);
        expect(text.match(/fs-write failed: .*are refused to other agents/g), text).toHaveLength(3);
        expect(text).toContain('permission: no');
      } finally {
        mode = 'ask';
      }
      expect(asked).toHaveLength(0);
      expect(readFileSync(join(folder, '.git', 'config'), 'utf8')).toBe('[core]\n');
      expect(existsSync(join(folder, '.git', 'hooks', 'pre-commit'))).toBe(false);
      expect(readFileSync(join(folder, '.claude', 'settings.json'), 'utf8')).toBe('{}');
    }
  }, 120_000);

  it.skipIf(!available)('a link swapped in after the write was checked is refused when the write reaches it: the target unchanged', async () => {
    mkdirSync(join(folder, 'd'));
    backend.beforeWrite = () => {
      renameSync(join(folder, 'd'), join(folder, 'd-was'));
      symlinkSync('.git', join(folder, 'd'));
    };
    mode = 'edit';
    try {
      const turn = await session.prompt(`fs-write ${join(folder, 'd', 'config')} [core]hooksPath=/tmp`);
      expect(said(turn.updates)).toMatch(/fs-write failed: .*now leads to '\/\.git\/config' through a symlink/);
    } finally {
      mode = 'ask';
    }
    expect(lstatSync(join(folder, 'd')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(folder, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect(existsSync(join(folder, 'd-was', 'config'))).toBe(false);
  }, 60_000);

  // The containment suite's attacks on what a run may touch (core/containment/file-cases.ts),
  // through ACP's fs/* in `auto` (nothing asks): what a command in the sandbox cannot reach, a
  // read or write the agent asks of the client does not reach either.
  it.skipIf(!available)('fs/read and fs/write reach nothing a sandboxed command cannot: secrets, the data folder, outside by path, `..` or a link, the folder’s own configuration', async () => {
    writeFileSync(join(dataDir, 'secrets.json'), '{"OPENAI_API_KEY":"sk-HELD-BY-DEEPDESK"}');
    const made = await session.prompt(`own-run ln -s ${join(root, 'outside')} out && ln -s ${join(fakeHome, '.ssh')} keys && ln -s ${dataDir} dd && ln -s .deepdesk dk && ln -s .claude/skills sk`);
    expect(said(made.updates)).toContain('own-run exit 0');
    mode = 'auto';
    asked.length = 0;
    try {
      const reads = [join(fakeHome, '.ssh', 'id_rsa'), join(folder, 'keys', 'id_rsa'), join(dataDir, 'secrets.json'), join(folder, 'dd', 'secrets.json'), join(folder, '..', 'home', '.ssh', 'id_rsa')];
      const writes = [
        outsideFile,
        join(folder, '..', 'outside', 'marker.txt'),
        join(folder, 'out', 'marker.txt'),
        join(folder, 'out', 'new.txt'),
        join(folder, '.deepdesk', 'hooks.json'),
        join(folder, 'dk', 'hooks.json'),
        join(folder, '.mcp.json'),
        join(folder, 'sk', 'x', 'SKILL.md'),
        join(folder, '.claude', 'skills', 'x', 'SKILL.md'),
      ];
      const turn = await session.prompt([...reads.map((p) => `fs-read ${p}`), ...writes.map((p) => `fs-write ${p} pwned`)].join(' ;; '));
      const text = said(turn.updates);
      expect(text).not.toContain('PLANTED-SECRET');
      expect(text).not.toContain('sk-HELD-BY-DEEPDESK');
      expect(text.match(/fs-read failed/g), text).toHaveLength(reads.length);
      expect(text.match(/fs-write failed/g), text).toHaveLength(writes.length);
    } finally {
      mode = 'ask';
    }
    expect(readFileSync(outsideFile, 'utf8')).toBe('original');
    expect(existsSync(join(root, 'outside', 'new.txt'))).toBe(false);
    for (const rel of ['.deepdesk', '.mcp.json', '.claude/skills']) expect(existsSync(join(folder, rel)), rel).toBe(false);
  }, 60_000);

  it.skipIf(!available)('a terminal runs the line it was asked with (a `for` loop), its env given to the process; refused, nothing runs', async () => {
    asked.length = 0;
    mode = 'auto';
    const line = 'for i in 1 2; do echo $i; done; printenv ACP_TEST_VAR';
    try {
      const turn = await session.prompt(`terminal ACP_TEST_VAR=from-the-agent ${line}`);
      expect(said(turn.updates)).toMatch(/^terminal exit 0; output 1\r?\n2\r?\nfrom-the-agent$/);
      expect(asked).toHaveLength(0);
    } finally {
      mode = 'ask';
    }
    // In ask mode, the person's answer is asked for the very line that runs; no (as `--approve deny` answers) runs nothing.
    answer = false;
    const marker = join(folder, 'marker-ran');
    const turn = await session.prompt(`terminal ACP_TEST_VAR=x touch ${marker}`);
    answer = true;
    expect(asked).toHaveLength(1);
    expect(asked[0]?.operation).toMatchObject({ tool: 'execute', command: `touch ${marker}` });
    expect(said(turn.updates)).toContain('terminal failed');
    expect(existsSync(marker)).toBe(false);
  }, 60_000);

  it.skipIf(!available)('what it does in its own process is held by the sandbox: outside the folder, git config, the planted key', async () => {
    const turn = await session.prompt(
      [
        `own-write ${outsideFile} overwritten`,
        `own-run echo pwned > ${outsideFile}; echo x >> ${join(folder, '.git', 'config')}`,
        `own-read ${join(fakeHome, '.ssh', 'id_rsa')}`,
        `own-read ${join(dataDir, 'nothing-here')}`,
        `own-write ${join(folder, 'inside.txt')} mine`,
      ].join(' ;; '),
    );
    const text = said(turn.updates);
    expect(readFileSync(outsideFile, 'utf8')).toBe('original');
    expect(readFileSync(join(folder, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect(text).not.toContain('PLANTED-SECRET');
    expect(text).toMatch(/own-read (EACCES|ENOENT|EPERM)/);
    // Its own writes inside the folder land (the sandbox allows them without asking).
    expect(readFileSync(join(folder, 'inside.txt'), 'utf8')).toBe('mine');
    expect(text).toContain('own-write ok');
  }, 60_000);

  it.skipIf(!available)("a terminal runs as Deepdesk's sandboxed execute, after the person allowed it", async () => {
    asked.length = 0;
    const turn = await session.prompt(`run echo from-terminal && cat ${join(fakeHome, '.ssh', 'id_rsa')}; echo changed > ${outsideFile}`);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.operation).toMatchObject({ tool: 'execute' });
    expect(asked[0]?.operation.command).toContain('echo from-terminal');
    const text = said(turn.updates);
    expect(text).toContain('from-terminal');
    expect(text).not.toContain('PLANTED-SECRET');
    expect(readFileSync(outsideFile, 'utf8')).toBe('original');
  }, 60_000);

  it.skipIf(!available)('the turn ends when the prompt was answered and its updates settled', async () => {
    const turn = await session.prompt('say first ;; late arrived-after-answer');
    expect(said(turn.updates)).toContain('arrived-after-answer');
  }, 60_000);

  it.skipIf(!available)('its own /tmp is private and writable: a socket and a file made there (as Claude Code’s sandbox bridge does) work, and never reach the host’s /tmp', async () => {
    const name = `deepdesk-private-tmp-${process.pid}-${Date.now()}`;
    const listen = `require('net').createServer().listen('/tmp/${name}.sock', function () { console.log('listening'); this.close(); })`;
    const turn = await session.prompt(`own-run ${process.execPath} -e "${listen}" && echo kept > /tmp/${name}.txt && cat /tmp/${name}.txt`);
    expect(said(turn.updates)).toContain('own-run exit 0 listening\nkept');
    expect(existsSync(`/tmp/${name}.sock`)).toBe(false);
    expect(existsSync(`/tmp/${name}.txt`)).toBe(false);
  }, 60_000);

  it.skipIf(!available)('the host’s /tmp reads as it is there, but a write to one of its files stays the agent’s and a host service’s socket there cannot be reached', async () => {
    const name = `deepdesk-host-tmp-${process.pid}-${Date.now()}`;
    writeFileSync(`/tmp/${name}.txt`, 'host\n');
    const server = createServer((c) => c.end('reached\n'));
    await new Promise<void>((resolve) => server.listen(`/tmp/${name}.sock`, resolve));
    try {
      const connect = `require('net').connect('/tmp/${name}.sock').on('data', (d) => console.log(String(d).trim())).on('error', (e) => console.log(e.code))`;
      const turn = await session.prompt(`own-run cat /tmp/${name}.txt && ${process.execPath} -e "${connect}" && echo agent > /tmp/${name}.txt && cat /tmp/${name}.txt`);
      expect(said(turn.updates)).toContain('own-run exit 0 host\nECONNREFUSED\nagent');
      expect(readFileSync(`/tmp/${name}.txt`, 'utf8')).toBe('host\n');
    } finally {
      server.close();
      rmSync(`/tmp/${name}.txt`, { force: true });
    }
  }, 60_000);

  it.skipIf(!available)('its private home is its own: written there, not in the person’s home', async () => {
    await session.prompt(`own-write ${join(dataDir, 'agents', 'homes', 'scripted', 'state.txt')} s ;; own-write ${join(fakeHome, 'x.txt')} s`);
    expect(existsSync(join(dataDir, 'agents', 'homes', 'scripted', 'state.txt'))).toBe(true);
    // Refused, or (this test's home lies in /tmp) kept in the agent's own /tmp: never in the home.
    expect(existsSync(join(fakeHome, 'x.txt'))).toBe(false);
  }, 60_000);
});

describe('ACP client: after a restart', async () => {
  const available = (await detectSandbox()).available;

  async function start(root: string, load: '1' | '0' | 'refuse'): Promise<AcpClientSession> {
    const folder = join(root, 'project');
    const dataDir = join(root, 'data');
    mkdirSync(folder, { recursive: true });
    mkdirSync(dataDir, { recursive: true });
    const backend = new LocalShellBackend({ rootDir: folder });
    const proc = await startAgentProcess({ command: process.execPath, args: [AGENT], env: { SCRIPTED_ACP_LOAD: load }, folder, dataDir, privateHome: join(dataDir, 'home'), droppedEnv: [] });
    const session = new AcpClientSession(proc, { agent: 'Scripted', folder, backend, execute: (c, o) => backend.execute(c, o), rules: () => DEFAULT_RULES, ask: async () => false });
    await session.initialize();
    return session;
  }

  it.skipIf(!available)('continues with session/load where the agent offers it, and says it cannot where it does not or refuses it', async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'acp-restart-')));
    try {
      const first = await start(root, '1');
      const id = await first.newSession();
      await first.stop();
      const again = await start(root, '1');
      expect(await again.continueSession(id)).toBe('continued');
      expect(again.id).toBe(id);
      const turn = await again.prompt('say still here');
      expect(said(turn.updates)).toContain('still here');
      await again.stop();
      const without = await start(root, '0');
      expect(await without.continueSession(id)).toBe('not offered');
      expect(without.id).toBeUndefined();
      await without.stop();
      const refusing = await start(root, 'refuse');
      expect(await refusing.continueSession(id)).toBe('refused');
      expect(refusing.id).toBeUndefined();
      await refusing.stop();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);

  it.skipIf(!available)('stopped after its turn, nothing waits on a cancel: its input closes at once and it exits by itself (a grace of an hour is not waited out)', async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'acp-stop-')));
    try {
      const folder = join(root, 'project');
      const dataDir = join(root, 'data');
      mkdirSync(folder, { recursive: true });
      mkdirSync(dataDir, { recursive: true });
      const backend = new LocalShellBackend({ rootDir: folder });
      const proc = await startAgentProcess({ command: process.execPath, args: [AGENT], env: {}, folder, dataDir, privateHome: join(dataDir, 'home'), droppedEnv: [] });
      const session = new AcpClientSession(proc, { agent: 'Scripted', folder, backend, execute: (c, o) => backend.execute(c, o), rules: () => DEFAULT_RULES, ask: async () => false });
      await session.initialize();
      await session.newSession();
      expect(said((await session.prompt('say done')).updates)).toContain('done');
      await session.stop(3_600_000);
      expect(await proc.exited).toMatchObject({ signal: null });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});
