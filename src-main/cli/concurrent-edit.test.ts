// Robustness 3, as the issue saw it: the person saves a file while the agent's command runs;
// `deepdesk checkpoints restore` of that message, without --force, must keep the save (it is
// the person's, not the agent's). Through the built bin, a real sandboxed command, a real
// folder and a real concurrent writer.

import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { until } from '../app/window/app-harness.test-support';
import { detectSandbox } from '../core/sandbox';
import { writeLayerTools } from '../core/sandbox/write-layer';
import { runFoldersDir } from '../core/sandbox/run-folders';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-cw-cli');
const layered = (await detectSandbox()).available && (await writeLayerTools()) !== undefined;

describe.skipIf(!layered)('a person edits a file while the agent’s command runs', () => {
  it('the edit is not the agent’s: the checkpoint lists only what the command wrote, and a restore without --force keeps the edit', async () => {
    writeFileSync(join(t.folder, 'app.py'), 'print(1)\n');
    writeFileSync(join(t.folder, 'notes.md'), 'mine\n');
    // The command tells it started through its private temp folder (its writes to the
    // project reach the folder only when it ends), then waits for the person's save.
    const token = `started-${randomBytes(6).toString('hex')}`;
    t.server.push(
      { toolCalls: [{ name: 'execute', args: { command: `echo "print(2)" > app.py && : > "$TMPDIR/${token}" && until grep -q edited notes.md; do sleep 0.05; done && echo built > out.txt` } }] },
      { text: 'Done.' },
    );
    const running = t.deepdesk(['run', '--json', '--thread', 'cw', '--approve', 'auto', '--folder', t.folder, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, 'Fix the app']);
    // Its TMPDIR is a run folder (core/sandbox/run-folders.ts): in this user's private folder of them, or the temp folder itself when that cannot be used.
    const startedIn = (dir: string) => existsSync(dir) && readdirSync(dir).some((n) => n.startsWith('deepdesk-run-') && existsSync(join(dir, n, token)));
    await until(() => startedIn(runFoldersDir()) || startedIn(tmpdir()), 'the command started');
    writeFileSync(join(t.folder, 'notes.md'), 'mine, edited during the command\n');
    const run = await running;
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const events = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; id?: string; files?: Array<{ path: string; status: string }> });
    const checkpoints = events.filter((e) => e.type === 'checkpoint');
    expect(checkpoints.map((e) => e.files)).toEqual([
      [
        { path: '/app.py', status: 'modified' },
        { path: '/out.txt', status: 'added' },
      ],
    ]);

    const restored = await t.deepdesk(['checkpoints', 'restore', checkpoints[0]!.id!]);
    expect(restored.stdout).toMatch(/^Restored 2 files$/m);
    expect(restored.code).toBe(0);
    expect(readFileSync(join(t.folder, 'app.py'), 'utf8')).toBe('print(1)\n');
    expect(existsSync(join(t.folder, 'out.txt'))).toBe(false);
    expect(readFileSync(join(t.folder, 'notes.md'), 'utf8')).toBe('mine, edited during the command\n');
  });
});
