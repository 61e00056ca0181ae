// The git mount over the network transports (SPEC §13): ssh:// through the system ssh to
// the test sshd on 127.0.0.1, and http:// through `git http-backend` (CGI) behind a small
// Node server on 127.0.0.1 — the smart HTTP protocol https:// remotes speak.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestSshd, type TestSshd } from '../remote/testing/sshd';
import type { GitMountBackend } from './git-mount';
import { git, makeRemote, openMount, remoteFile, remoteSubjects, tempDir, TEST_GIT_ENV } from './git-mount.test-support';

let root: string;
let mounts: GitMountBackend[];
beforeEach(() => {
  root = tempDir('gitmount-net');
  mounts = [];
});
afterEach(async () => {
  for (const m of mounts) await m.close();
  fs.rmSync(root, { recursive: true, force: true });
});

function mount(url: string, cache: string, env: NodeJS.ProcessEnv = TEST_GIT_ENV): GitMountBackend {
  const m = openMount(url, path.join(root, cache), { env });
  mounts.push(m);
  return m;
}

/** Races two mounts of `url` and checks both changes landed (the second push was replayed). */
async function roundTrip(url: string, bare: string, env?: NodeJS.ProcessEnv): Promise<void> {
  const a = mount(url, 'a', env);
  const b = mount(url, 'b', env);
  expect((await a.read('/doc.md')).fileData?.content).toBe('one\ntwo');
  expect((await b.read('/doc.md')).error).toBeUndefined();
  await a.edit('/doc.md', 'one', 'ONE');
  await b.write('/b.md', 'b\n');
  expect((await a.commitStep()).committed).toBe(true);
  expect((await b.commitStep()).committed).toBe(true);
  expect(remoteFile(bare, 'doc.md')).toBe('ONE\ntwo\n');
  expect(remoteFile(bare, 'b.md')).toBe('b\n');
  expect(remoteSubjects(bare)).toEqual(['deepdesk: write_file /b.md', 'deepdesk: edit_file /doc.md', 'seed']);
}

describe('git mount over ssh://', () => {
  let sshd: TestSshd | undefined;
  beforeAll(async () => {
    sshd = await startTestSshd();
  });
  afterAll(async () => {
    await sshd?.dispose();
  });

  it('clones, commits and pushes through the system ssh (DEEPDESK_SSH_COMMAND)', async () => {
    const bare = makeRemote(root, { 'doc.md': 'one\ntwo\n' });
    await roundTrip(sshd!.folderUrl(bare), bare, { ...TEST_GIT_ENV, DEEPDESK_SSH_COMMAND: sshd!.sshCommand });
  });

  it('a host that does not answer is an Error naming it', async () => {
    const bare = makeRemote(root, { 'doc.md': 'x\n' });
    await sshd!.stop();
    try {
      const m = mount(sshd!.folderUrl(bare), 'c', { ...TEST_GIT_ENV, DEEPDESK_SSH_COMMAND: sshd!.sshCommand });
      expect((await m.ls('/')).error).toMatch(new RegExp(`^git remote ssh://deepdesk-test${bare.replace(/[.]/g, '\\.')} is unreachable: .*(refused|closed|Connection)`));
    } finally {
      await sshd!.start();
    }
  });
});

describe('git mount over http:// (git http-backend)', () => {
  let server: http.Server | undefined;
  let base = '';
  let projects = '';
  beforeAll(async () => {
    projects = tempDir('git-http');
    server = http.createServer((req, res) => serveGit(projects, req, res));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    fs.rmSync(projects, { recursive: true, force: true });
  });

  it('clones, commits and pushes over smart HTTP, credentials kept out of messages', async () => {
    const bare = makeRemote(projects, { 'doc.md': 'one\ntwo\n' });
    git(['--git-dir', bare, 'config', 'http.receivepack', 'true']);
    await roundTrip(`${base}/remote.git`, bare);
    const missing = mount(`http://me:s3cret@127.0.0.1:1/none.git`, 'x');
    const res = await missing.read('/doc.md');
    expect(res.error).toMatch(/^git remote http:\/\/127\.0\.0\.1:1\/none\.git is unreachable: /);
    expect(res.error).not.toContain('s3cret');
    fs.rmSync(bare, { recursive: true, force: true });
  });
});

/** The CGI gateway: git http-backend answers from GIT_PROJECT_ROOT. */
function serveGit(projectRoot: string, req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const child = spawn('git', ['http-backend'], {
    env: {
      ...TEST_GIT_ENV,
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.replace(/^\?/, ''),
      REQUEST_METHOD: req.method ?? 'GET',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
      ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
      ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      REMOTE_ADDR: '127.0.0.1',
      REMOTE_USER: 'tester',
    },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  req.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let headersDone = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    headersDone = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.writeHead(status);
    res.write(head.subarray(end + 4));
  });
  child.on('close', () => {
    if (!headersDone) res.writeHead(500);
    res.end();
  });
}
