// Slash commands in `deepdesk run` (SPEC §11), through the built bin: an unknown or
// window-only command is one line and exit 2 with nothing sent; `/compact` summarizes the
// thread given with --thread.

import { describe, expect, it } from 'vitest';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-run-slash');
const run = (...args: string[]) => t.deepdesk(['run', '--folder', t.folder, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, ...args]);

describe('slash commands in deepdesk run', () => {
  it('an unknown command is one line, exit 2, and the model is never called', async () => {
    expect(await run('/frobnicate the thing')).toMatchObject({ code: 2, stdout: '', stderr: 'deepdesk run: unknown command /frobnicate: type / to see the commands\n' });
    expect(await run('/mode yolo')).toMatchObject({ code: 2, stderr: 'deepdesk run: /mode needs one of ask, edit, auto, plan\n' });
    expect(await run('/mode plan')).toMatchObject({ code: 2, stderr: "deepdesk run: /mode changes the window's mode; for deepdesk run pass --mode plan\n" });
    expect(t.server.requests).toHaveLength(0);
  });

  it('/compact summarizes the thread now and prints what it did', async () => {
    const long = 'y'.repeat(12_000);
    t.server.push({ text: `one ${long}` }, { text: `two ${long}` }, { text: 'summary text' });
    expect((await run('--thread', 'th-1', `first ${long}`)).code).toBe(0);
    expect((await run('--thread', 'th-1', 'second')).code).toBe(0);
    const compacted = await run('--thread', 'th-1', '/compact');
    expect(compacted).toMatchObject({ code: 0, stdout: 'The conversation was compacted.\n' });
    expect(t.server.requests).toHaveLength(3);
  });
});
