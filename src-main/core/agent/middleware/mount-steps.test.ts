// The git mount's step boundary inside the real agent loop (scripted model, real git):
// one commit per model turn, pushed before the results reach the model; a failed push
// reaches the model (and the events) as `Error: `, with one tool_result per call.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createComposite } from '../../backends/mounts/composite';
import { FilesystemBackend } from '../../backends/filesystem/filesystem';
import type { GitMountBackend } from '../../backends/git-mount/git-mount';
import { makeRemote, openMount, remoteFile, remoteSubjects, tempDir } from '../../backends/git-mount/git-mount.test-support';
import { createChatModel } from '../../models/create-model';
import { startScriptedServer, type ScriptedServer, type ScriptStep } from '../../models/testing/scripted-server';
import { ReadGuard } from '../../tools/read-guard';
import { assertToolPairing, toolMessages, textOf } from '../agent-harness.test-support';
import { createAgentDefinition } from '../create-agent';
import { runAgent } from '../loop';
import { newThreadState, type AgentEvent } from '../types';
import { commitMountSteps, mountStepsMiddleware } from './mount-steps';

let root: string | undefined;
let server: ScriptedServer | undefined;
let mount: GitMountBackend | undefined;
afterEach(async () => {
  await mount?.close();
  await server?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
  root = server = mount = undefined;
});

async function setUp(script: ScriptStep[], files: Record<string, string> = { 'a.md': 'alpha\n' }) {
  root = tempDir('mount-steps');
  const bare = makeRemote(root, files);
  const folder = path.join(root, 'project');
  fs.mkdirSync(folder);
  mount = openMount(`file://${bare}`, path.join(root, 'data', 'mounts'), { prefix: '/repo/' });
  const mounted = [{ prefix: '/repo/', backend: mount }];
  server = await startScriptedServer(script);
  const model = createChatModel({ model: 'openai-compatible:scripted-model', baseUrl: server.url, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
  const definition = createAgentDefinition({
    model,
    backend: createComposite(new FilesystemBackend({ rootDir: folder }), [{ prefix: '/repo/', backend: mount, listInRoot: 'always' }]),
    rules: () => [{ tools: ['*'], decision: 'allow' }],
    broker: { decide: async () => ({ type: 'reject', message: 'no' }) },
  });
  definition.middleware.push(mountStepsMiddleware(() => mounted));
  const state = newThreadState('thread-1');
  const events: AgentEvent[] = [];
  const guard = new ReadGuard();
  const run = (prompt: string) => runAgent(definition, state, { role: 'user', content: prompt }, { emit: (e) => events.push(e), persist: async () => undefined, guard });
  return { bare, events, run, mounted, server };
}

describe('mount steps through the agent loop', () => {
  it('makes one commit per model turn, pushed before the results reach the model', async () => {
    let bareSeenByModel: string | null = null;
    const ctx = await setUp([
      { toolCalls: [{ name: 'read_file', args: { file_path: '/repo/a.md' } }] },
      {
        toolCalls: [
          { name: 'write_file', args: { file_path: '/repo/notes/one.md', content: 'one\n' } },
          { name: 'edit_file', args: { file_path: '/repo/a.md', old_string: 'alpha', new_string: 'ALPHA' } },
          { name: 'write_file', args: { file_path: '/local.txt', content: 'not in git\n' } },
        ],
      },
      () => {
        bareSeenByModel = remoteFile(bare, 'notes/one.md');
        return { toolCalls: [{ name: 'write_file', args: { file_path: '/repo/notes/two.md', content: 'two\n' } }] };
      },
      { text: 'done' },
    ]);
    const bare = ctx.bare;
    const result = await ctx.run('write notes');
    expect(result.reason).toBe('completed');
    expect(bareSeenByModel).toBe('one\n');
    expect(remoteSubjects(bare)).toEqual([
      'deepdesk: write_file /repo/notes/two.md',
      'deepdesk: write_file /repo/notes/one.md edit_file /repo/a.md',
      'seed',
    ]);
    expect(remoteFile(bare, 'a.md')).toBe('ALPHA\n');
    // One tool_result per call, the held ones included.
    const results = ctx.events.filter((e) => e.type === 'tool_result');
    expect(results).toHaveLength(5);
    expect(new Set(results.map((e) => (e as { id: string }).id)).size).toBe(5);
    expect(results.every((e) => !(e as { isError: boolean }).isError)).toBe(true);
    for (const request of ctx.server.requests) assertToolPairing(request);
  });

  it('a push that fails reaches the model and the events as Error naming the remote', async () => {
    let bare = '';
    const ctx = await setUp([
      { toolCalls: [{ name: 'ls', args: { path: '/repo/' } }] },
      () => {
        // Cloned by the first turn; the remote goes away before this turn's push.
        fs.renameSync(bare, `${bare}.away`);
        return {
          toolCalls: [
            { name: 'write_file', args: { file_path: '/repo/b.md', content: 'b\n' } },
            { name: 'write_file', args: { file_path: '/local.txt', content: 'fine\n' } },
          ],
        };
      },
      { text: 'done' },
    ]);
    bare = ctx.bare;
    const away = `${ctx.bare}.away`;
    expect((await ctx.run('go')).reason).toBe('completed');
    const last = ctx.server.requests.at(-1)!;
    const tools = toolMessages(last).map((m) => textOf(m.content));
    expect(tools[1]).toMatch(/^Error: could not push to file:\/\/.*remote\.git: .*pushed with the next step/);
    expect(tools[2]).toBe('Updated file /local.txt');
    const writeResults = ctx.events.filter((e) => e.type === 'tool_result' && (e as { name: string }).name === 'write_file') as { output: string; isError: boolean }[];
    expect(writeResults).toHaveLength(2);
    expect(writeResults.filter((e) => e.isError).map((e) => e.output)).toEqual([tools[1]]);

    // The remote is back: a tools-session style step pushes the kept commit.
    fs.renameSync(away, ctx.bare);
    expect(await commitMountSteps(ctx.mounted)).toBeUndefined();
    expect(remoteFile(ctx.bare, 'b.md')).toBe('b\n');
  });
});
