// `deepdesk acp --sandbox daytona` as an editor drives it (SPEC §14, §18): the built bin, the
// SDK's client side on its stdin/stdout, and the real @daytonaio/sdk against the Daytona
// stand-in. A session's folder is its sandbox worktree: commands run in the sandbox, what they
// change comes back to the worktree, the person's folder stays as it was; loading the session
// again reattaches the same sandbox.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream, PROTOCOL_VERSION, type ClientConnection } from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDaytonaStandin } from '../core/sandbox-providers/testing/daytona-standin';
import type { ProviderStandin } from '../core/sandbox-providers/testing/standin';
import { bin, repo, useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-acp-sandbox');
const NO_PROVIDER_KEYS = { DAYTONA_API_KEY: '', DAYTONA_API_URL: '', E2B_API_KEY: '', MODAL_TOKEN_ID: '', MODAL_TOKEN_SECRET: '', DENO_DEPLOY_TOKEN: '' };
let standin: ProviderStandin;
beforeEach(async () => {
  standin = await startDaytonaStandin();
});
const editors: Editor[] = [];
afterEach(async () => {
  for (const e of editors.splice(0)) await e.close();
  await standin.close();
});

interface Editor {
  conn: ClientConnection;
  stderr: () => string;
  close(): Promise<void>;
}

const acpArgs = (...extra: string[]) => ['acp', '--folder', t.folder, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, ...extra];

/** What each permission request showed the editor (its content), oldest first. */
const asked: string[] = [];

/** An editor on `deepdesk acp ARGS`: it allows every permission request once. */
function startEditor(args: string[]): Editor {
  const child = spawn(process.execPath, [bin, ...args], { cwd: repo, env: { ...process.env, OPENAI_API_KEY: '', ...NO_PROVIDER_KEYS, ...standin.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const app = client({ name: 'test-editor' }).onRequest(methods.client.session.requestPermission, ({ params }) => {
    asked.push(JSON.stringify(params.toolCall.content ?? []));
    return { outcome: { outcome: 'selected', optionId: 'allow_once' } };
  });
  const conn = app.connect(ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>));
  const editor: Editor = {
    conn,
    stderr: () => stderr,
    async close() {
      conn.close();
      child.stdin!.end();
      if (child.exitCode === null) await new Promise((done) => child.once('close', done));
    },
  };
  editors.push(editor);
  return editor;
}

const initialize = (editor: Editor) => editor.conn.agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
const prompt = (editor: Editor, sessionId: string, text: string) => editor.conn.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });

const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=Pat', '-c', 'user.email=pat@example.com', ...args], { cwd: t.folder, encoding: 'utf8' });
function project(): void {
  git('init', '-q');
  writeFileSync(join(t.folder, 'a.txt'), 'alpha\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
}

/** The tool results the model was sent last, in order. */
function toolResults(): string[] {
  return (t.server.requests.at(-1)?.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));
}

describe('deepdesk acp --sandbox daytona', () => {
  it("a session's commands run in the sandbox of a worktree of the editor's folder; loading it again reattaches that sandbox", async () => {
    project();
    const editor = startEditor(acpArgs('--sandbox', 'daytona'));
    await initialize(editor);
    const { sessionId } = await editor.conn.agent.request(methods.agent.session.new, { cwd: t.folder, mcpServers: [] });
    const said = /The thread works in worktree (\S+) at (\S+) \(branch deepdesk\/\1\), in a Daytona sandbox/.exec(editor.stderr());
    expect(said, editor.stderr()).not.toBeNull();
    const worktree = said![2]!;

    t.server.push({ toolCalls: [{ name: 'execute', args: { command: 'hostname; cat a.txt; echo made here > made.txt' } }] }, { text: 'done' });
    expect((await prompt(editor, sessionId, 'work in the sandbox')).stopReason).toBe('end_turn');
    expect(toolResults()[0]).toContain('sandbox\nalpha\n');
    expect([...standin.boxes.keys()]).toHaveLength(1);
    const id = [...standin.boxes.keys()][0]!;
    // The editor's approval said where the command runs.
    expect(asked.at(-1)).toContain(`Runs in Daytona · sandbox ${id}`);
    // What the command made came back to the worktree; the person's folder is as it was.
    expect(readFileSync(join(worktree, 'made.txt'), 'utf8')).toBe('made here\n');
    expect(existsSync(join(t.folder, 'made.txt'))).toBe(false);

    // The session is listed in the editor's folder, and loading it there reattaches its sandbox.
    const listed = await editor.conn.agent.request(methods.agent.session.list, { cwd: t.folder });
    expect(listed.sessions.map((s) => [s.sessionId, s.cwd])).toEqual([[sessionId, worktree]]);
    await editor.close();

    const again = startEditor(acpArgs());
    await initialize(again);
    await again.conn.agent.request(methods.agent.session.load, { sessionId, cwd: t.folder, mcpServers: [] });
    t.server.push({ toolCalls: [{ name: 'execute', args: { command: 'cat made.txt' } }] }, { text: 'again' });
    expect((await prompt(again, sessionId, 'still there?')).stopReason).toBe('end_turn');
    expect(toolResults().at(-1)).toContain('made here');
    expect([...standin.boxes.keys()]).toEqual([id]);
  });

  it('--sandbox-id: the first session reattaches that sandbox (its worktree); the next gets a sandbox of its own', async () => {
    project();
    const first = startEditor(acpArgs('--sandbox', 'daytona'));
    await initialize(first);
    const { sessionId } = await first.conn.agent.request(methods.agent.session.new, { cwd: t.folder, mcpServers: [] });
    t.server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/kept.txt', content: 'kept\n' } }] }, { text: 'first' });
    await prompt(first, sessionId, 'first');
    const id = [...standin.boxes.keys()][0]!;
    const worktree = /worktree \S+ at (\S+) /.exec(first.stderr())![1]!;
    await first.close();

    const editor = startEditor(acpArgs('--sandbox-id', id));
    await initialize(editor);
    const reattached = await editor.conn.agent.request(methods.agent.session.new, { cwd: t.folder, mcpServers: [] });
    expect(editor.stderr()).toContain(`Reattaching the Daytona sandbox ${id} of worktree`);
    expect(editor.stderr()).toContain(`at ${worktree} (branch`);
    t.server.push({ toolCalls: [{ name: 'execute', args: { command: 'hostname; cat kept.txt' } }] }, { text: 'second' });
    await prompt(editor, reattached.sessionId, 'second');
    expect(toolResults().at(-1)).toContain('sandbox\nkept\n');

    const other = await editor.conn.agent.request(methods.agent.session.new, { cwd: t.folder, mcpServers: [] });
    t.server.push({ toolCalls: [{ name: 'execute', args: { command: 'hostname; ls' } }] }, { text: 'third' });
    await prompt(editor, other.sessionId, 'third');
    expect(toolResults().at(-1)).not.toContain('kept.txt');
    expect(standin.boxes.size).toBe(2);
  });

  it('bad combinations are bad usage, told before any session', async () => {
    const run = (args: string[], env: NodeJS.ProcessEnv = {}) => t.deepdesk([...acpArgs(), ...args], { ...NO_PROVIDER_KEYS, ...env }, '');
    const badProvider = await run(['--sandbox', 'docker']);
    expect(badProvider.code).toBe(2);
    expect(badProvider.stderr).toContain("--sandbox must be daytona, modal, e2b, deno (got 'docker')");
    const unknownId = await run(['--sandbox-id', 'never-made']);
    expect(unknownId.code).toBe(2);
    expect(unknownId.stderr).toContain('--sandbox-id: Deepdesk did not make sandbox never-made; name its provider with --sandbox');
    const noKey = await run(['--sandbox', 'daytona']);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/^deepdesk acp: Daytona needs DAYTONA_API_KEY: set it in the environment or in Settings › Sandboxes\.$/m);
    expect(t.server.requests).toHaveLength(0);
  });
});
