// Deepdesk's own credentials reach nothing it starts (SPEC §7): with provider keys, the
// memories store's password (PGPASSWORD, a postgres URL with a password, PGPASSFILE and
// PGSERVICEFILE naming files) in Deepdesk's environment, a sandboxed command, a server
// (sandboxed and not) and a hook each print their environment for real: none of it is
// there, and neither ~/.pgpass nor the files those variables name can be read inside the
// sandbox. Only what a server's entry sets explicitly is passed on. The processes Deepdesk
// starts for itself (git, ripgrep, ssh, probes) get only the allow-listed environment, and
// ssh and git the ssh agent's socket besides.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SearchDeadline } from '../backends/filesystem/fs-deadline';
import { ripgrepFiles } from '../backends/filesystem/fs-ripgrep';
import { LocalShellBackend } from '../backends/filesystem/local-shell';
import { SshConnection } from '../backends/remote/ssh-connection';
import { parseSshTarget } from '../backends/remote/ssh-target';
import { startTestSshd } from '../backends/remote/testing/sshd';
import { gitEnv, runGit } from '../git/run-git';
import { runHook } from '../extensions/hooks/runner';
import type { HookEntry } from '../extensions/hooks/types';
import { createSandbox, detectSandbox } from '../sandbox';
import type { SandboxPolicy } from '../sandbox/types';
import { liveProcesses, querySync, spawnPipe } from './spawn';
import { startProcess, stopAllProcesses } from '../sandbox/supervisor';
import type { SupervisedProcess } from '../sandbox/supervisor-types';

const PROBE = join(import.meta.dirname, '__fixtures__', 'probe-server.mjs');
const available = await detectSandbox();

/** Every value that must show nowhere. */
const SECRETS = {
  PGPASSWORD: 'pgpassword-planted-0001',
  ANTHROPIC_API_KEY: 'sk-ant-planted-0002',
  OPENAI_API_KEY: 'sk-openai-planted-0003',
  GOOGLE_GENERATIVE_AI_API_KEY: 'google-planted-0004',
  GEMINI_API_KEY: 'gemini-planted-0005',
  ANTHROPIC_AUTH_TOKEN: 'oauth-token-planted-0006',
  // The telemetry collectors' keys (issue 51).
  OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=otel-planted-0012',
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'authorization=otel-traces-planted-0013',
  LANGSMITH_API_KEY: 'lsv2-planted-0014',
  DATABASE_URL: 'postgres://deepdesk:pgurl-planted-0007@db.example:5432/memories',
  TEAM_MEMORIES: 'postgresql://db.example/memories?sslmode=require&password=pgurl-planted-0008',
};
const PGPASS_TEXT = 'db.example:5432:memories:deepdesk:pgpass-file-planted-0009';
const SERVICE_TEXT = '[memories]\nhost=db.example\npassword=service-file-planted-0010\n';
const NAMED_PASS_TEXT = 'db.example:*:*:*:pgpassfile-planted-0011';
const AGENT_SOCKET = '/run/planted-agent.sock';

let root: string;
let home: string;
let project: string;
let dataDir: string;
let passFile: string;
let serviceFile: string;
const saved = new Map<string, string | undefined>();

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-inherit-')));
  home = join(root, 'home');
  project = join(root, 'project');
  dataDir = join(root, 'data');
  for (const dir of [home, project, dataDir, join(root, 'elsewhere')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(home, '.pgpass'), PGPASS_TEXT, { mode: 0o600 });
  writeFileSync(join(home, '.pg_service.conf'), SERVICE_TEXT, { mode: 0o600 });
  passFile = join(root, 'elsewhere', 'pgpass');
  serviceFile = join(root, 'elsewhere', 'services.conf');
  writeFileSync(passFile, NAMED_PASS_TEXT, { mode: 0o600 });
  writeFileSync(serviceFile, SERVICE_TEXT, { mode: 0o600 });
  // The password again under a name of the person's.
  const planted: Record<string, string> = { ...SECRETS, MY_DB_PASS: SECRETS.PGPASSWORD, PGPASSFILE: passFile, PGSERVICEFILE: serviceFile, KEEP_ME: 'ordinary-value', SSH_AUTH_SOCK: AGENT_SOCKET };
  for (const [name, value] of Object.entries(planted)) {
    saved.set(name, process.env[name]);
    process.env[name] = value;
  }
});

afterEach(async () => {
  await stopAllProcesses();
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  saved.clear();
  rmSync(root, { recursive: true, force: true });
});

/** What must not be in a process's printed environment. */
function expectNoCredentials(printed: string): void {
  for (const [name, value] of Object.entries(SECRETS)) {
    expect(printed, name).not.toContain(value);
    expect(printed, name).not.toMatch(new RegExp(`^${name}=`, 'm'));
  }
  for (const name of ['PGPASSFILE', 'PGSERVICEFILE']) expect(printed, name).not.toMatch(new RegExp(`^${name}=`, 'm'));
  expect(printed).toMatch(/^KEEP_ME=ordinary-value$/m);
}

function envText(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([name, value]) => `${name}=${value}`)
    .join('\n');
}

function ask<T>(server: SupervisedProcess, request: Record<string, unknown>): Promise<{ ok: boolean; value?: T; error?: string }> {
  return new Promise((resolve) => {
    const lines = createInterface({ input: server.stdout });
    lines.once('line', (line) => {
      lines.close();
      const { id: _id, ...answer } = JSON.parse(line) as { id: number; ok: boolean; value?: T; error?: string };
      resolve(answer);
    });
    server.stdin.write(`${JSON.stringify({ ...request, id: 1 })}\n`);
  });
}

const policy = (): SandboxPolicy => ({ projectDir: project, dataDir });

describe.skipIf(!available.available)('inside the sandbox', () => {
  it('a command sees none of the credentials and reads neither ~/.pgpass, ~/.pg_service.conf nor the files PGPASSFILE and PGSERVICEFILE name', async () => {
    const sandbox = await createSandbox(policy());
    const backend = new LocalShellBackend({ rootDir: project, env: { HOME: home }, sandbox: sandbox! });
    const result = await backend.execute(`env; cat "$HOME/.pgpass"; cat "$HOME/.pg_service.conf"; cat '${passFile}'; cat '${serviceFile}'; echo done`, { timeoutS: 30 });
    expect(result.output).toContain('done');
    expectNoCredentials(result.output);
    for (const text of ['pgpass-file-planted-0009', 'service-file-planted-0010', 'pgpassfile-planted-0011']) expect(result.output).not.toContain(text);
  });

  it('a server sees none of the credentials and cannot read ~/.pgpass', async () => {
    const server = await startProcess({ command: process.execPath, args: [PROBE], cwd: project, env: {}, baseEnv: { ...process.env, HOME: home }, sandbox: policy() });
    expectNoCredentials(envText((await ask<Record<string, string>>(server, { op: 'env' })).value!));
    const read = await ask(server, { op: 'read', path: join(home, '.pgpass') });
    expect(read).toEqual({ ok: false, error: 'EACCES' });
  });
});

describe('outside the sandbox', () => {
  it('an unsandboxed server sees none of the credentials, only what its entry sets', async () => {
    const server = await startProcess({ command: process.execPath, args: [PROBE], cwd: project, env: { ENTRY_DB: 'set-by-the-entry' }, sandbox: false });
    const env = (await ask<Record<string, string>>(server, { op: 'env' })).value!;
    expectNoCredentials(envText(env));
    expect(env.ENTRY_DB).toBe('set-by-the-entry');
  });

  it('a hook sees none of the credentials', async () => {
    const hook: HookEntry = { id: 'hooks.json#SessionStart.0.0', event: 'SessionStart', command: 'env', timeoutMs: 30_000, source: 'user', file: join(dataDir, 'hooks.json'), digest: 'x' };
    const run = await runHook(hook, { session_id: 't', cwd: project, hook_event_name: 'SessionStart', permission_mode: 'auto' }, { folder: project });
    expect(run.exitCode).toBe(0);
    expectNoCredentials(run.stdout);
  });
});

/** A stand-in for a program Deepdesk starts: it writes its environment to `out`, then fails. */
function envDumper(name: string, out: string): string {
  const file = join(root, 'bin', name);
  mkdirSync(join(root, 'bin'), { recursive: true });
  writeFileSync(file, `#!/bin/sh\nenv > '${out}'\nexit 3\n`);
  chmodSync(file, 0o755);
  return file;
}

/** Only the allow-list: no credential, nothing else of Deepdesk's (KEEP_ME), the base there. */
function expectAllowListed(printed: string, ssh: boolean): void {
  for (const [name, value] of Object.entries(SECRETS)) {
    expect(printed, name).not.toContain(value);
    expect(printed, name).not.toMatch(new RegExp(`^${name}=`, 'm'));
  }
  expect(printed).not.toMatch(/^(KEEP_ME|MY_DB_PASS|PGPASSFILE|PGSERVICEFILE)=/m);
  expect(printed).toMatch(/^PATH=/m);
  expect(printed).toMatch(/^HOME=/m);
  if (ssh) expect(printed).toContain(`SSH_AUTH_SOCK=${AGENT_SOCKET}`);
  else expect(printed).not.toMatch(/^SSH_AUTH_SOCK=/m);
}

describe('the processes Deepdesk starts for itself get the allow-listed environment', () => {
  it('git (run-git): no credentials, the ssh agent kept', async () => {
    const out = join(root, 'git-env.txt');
    const r = await runGit(['-c', `alias.dump=!env > '${out}'`, 'dump'], { cwd: project, env: gitEnv(process.env), timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    expectAllowListed(readFileSync(out, 'utf8'), true);
  });

  it('ripgrep (the grep tool): no credentials, no ssh agent', async () => {
    const out = join(root, 'rg-env.txt');
    await ripgrepFiles({ rg: envDumper('rg', out), dir: project, parents: false, inRepository: false }, new SearchDeadline(30_000), () => undefined);
    expectAllowListed(readFileSync(out, 'utf8'), false);
  });

  it('ssh (a remote folder, against the test sshd): no credentials, the ssh agent kept', async () => {
    const sshd = await startTestSshd();
    const connection = new SshConnection({ target: parseSshTarget(sshd.folderUrl('/tmp')), controlDir: join(sshd.dir, 'cm'), sshCommand: sshd.sshCommand });
    try {
      expect((await connection.run('true')).code).toBe(0);
      // The connection's kept shells are ssh clients still running: their environment as the kernel has it.
      const clients = liveProcesses().filter((p) => p.role === 'ssh');
      expect(clients.length).toBeGreaterThan(0);
      for (const client of clients) expectAllowListed(readFileSync(`/proc/${client.pid}/environ`, 'utf8').split('\0').join('\n'), true);
    } finally {
      await connection.close();
      await sshd.dispose();
    }
  });

  it('a probe, and any process started without an environment of its own: the default', async () => {
    const out = join(root, 'probe-env.txt');
    const child = spawnPipe({ role: 'probe', file: envDumper('probe', out), args: [], stdio: 'ignore' });
    await new Promise((resolve) => child.once('close', resolve));
    expectAllowListed(readFileSync(out, 'utf8'), false);
    const queried = join(root, 'query-env.txt');
    querySync(envDumper('query', queried), [], 10_000);
    expectAllowListed(readFileSync(queried, 'utf8'), false);
  });
});
