// A change a mount can never make is refused before anyone is asked (SPEC §13 with the
// approval rule of §4): through the real agent loop in `ask` mode, a write or edit on a
// read-only mount, or into a git mount's .git, comes back as the backend's own refusal with
// no approval requested, while a write elsewhere still asks.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FilesystemBackend } from '../backends/filesystem/filesystem';
import { GitMountBackend } from '../backends/git-mount/git-mount';
import { readOnlyBackend } from '../backends/mounts/read-only';
import { createHarness, textOf, toolMessages, type Harness } from './agent-harness.test-support';
import { DEFAULT_RULES } from './permissions/rules';

let h: Harness | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  await h?.dispose();
  h = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('changes a mount refuses, in ask mode', () => {
  it('are refused with the backend\'s text and no approval; a write elsewhere still asks', async () => {
    const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-mount-refusal-')));
    cleanups.push(() => fs.rmSync(tmp, { recursive: true, force: true }));
    const ref = path.join(tmp, 'ref');
    fs.mkdirSync(ref);
    fs.writeFileSync(path.join(ref, 'api.md'), 'the api\n');
    const git = new GitMountBackend({ url: `file://${tmp}/nowhere.git`, cacheRoot: path.join(tmp, 'mounts') });
    cleanups.push(() => git.close());
    h = await createHarness({
      rules: DEFAULT_RULES,
      mode: 'ask',
      extraMounts: [
        { prefix: '/ref/', backend: readOnlyBackend(new FilesystemBackend({ rootDir: ref })) },
        { prefix: '/docs/', backend: git },
      ],
      decisions: [{ type: 'approve' }],
      script: [
        {
          toolCalls: [
            { name: 'write_file', args: { file_path: '/ref/new.md', content: 'x\n' } },
            // Existing and never read: the mount's refusal, not "read it first" (reading it would not help).
            { name: 'edit_file', args: { file_path: '/ref/api.md', old_string: 'api', new_string: 'API' } },
            { name: 'write_file', args: { file_path: '/docs/.git/config', content: '[core]\n' } },
            { name: 'write_file', args: { file_path: '/plain.txt', content: 'fine\n' } },
          ],
        },
        { text: 'done' },
      ],
    });
    await h.run('change things');
    expect(h.approvals.map((a) => a.args.file_path)).toEqual(['/plain.txt']);
    const results = toolMessages(h.server.requests[1]!).map((m) => textOf(m.content));
    expect(results).toEqual([
      "Error: '/ref/new.md' is on a read-only mount",
      "Error: '/ref/api.md' is on a read-only mount",
      "Error: '/docs/.git/config' is inside a .git folder, which a git mount never reads or writes",
      'Updated file /plain.txt',
    ]);
    expect(fs.readFileSync(path.join(h.ws.folder, 'plain.txt'), 'utf8')).toBe('fine\n');
    expect(fs.readFileSync(path.join(ref, 'api.md'), 'utf8')).toBe('the api\n');
    expect(fs.existsSync(path.join(ref, 'new.md'))).toBe(false);
    // Saying no to .git needed no clone.
    expect(fs.existsSync(path.join(tmp, 'mounts'))).toBe(false);
  });
});
