// Another agent's adapter that dies (issue 79 M12, SPEC §22): the run says it exited, with its
// stderr's last lines and what to do — never a bare `write EPIPE` or "connection closed".
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../core/sandbox';
import { repo, useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-agent-exit');
const SCRIPT = join(repo, 'src-main/core/acp-client/testing/scripted-acp-agent.mjs');

describe('a dead adapter', async () => {
  const available = (await detectSandbox()).available;

  it.skipIf(!available)('says it exited, with its stderr and what to do, never a bare EPIPE or a closed connection', { timeout: 120_000 }, async () => {
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ agents: { added: [{ name: 'scripted', label: 'Scripted Agent', command: process.execPath, args: [SCRIPT, `--marker=${randomUUID()}`], env: {} }] } }));
    const base = ['--folder', t.folder, '--data-dir', t.dataDir, '--agent', 'scripted'];
    const died = await t.deepdesk(['run', '--json', ...base, 'say starting ;; die 3 your sign-in has expired'], {}, '');
    expect(died.code).not.toBe(0);
    expect(died.stderr).toBe('deepdesk run: Scripted Agent exited (code 3) before answering session/prompt, its last words: "your sign-in has expired". The thread\'s next message starts it again.\n');
    expect(died.stderr).not.toMatch(/EPIPE|connection closed/);
  });

  it.skipIf(!available)('a thread whose first turn failed keeps its agent: the next run on it starts that agent again', { timeout: 120_000 }, async () => {
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ agents: { added: [{ name: 'scripted', label: 'Scripted Agent', command: process.execPath, args: [SCRIPT, `--marker=${randomUUID()}`], env: {} }] } }));
    const thread = randomUUID();
    const base = ['--folder', t.folder, '--data-dir', t.dataDir, '--thread', thread];
    expect((await t.deepdesk(['run', ...base, '--agent', 'scripted', 'die 3 your sign-in has expired'], {}, '')).code).not.toBe(0);
    const again = await t.deepdesk(['run', ...base, '--agent', 'scripted', 'say back again'], {}, '');
    expect(again).toMatchObject({ code: 0, stdout: 'back again\n' });
    // Without --agent the thread's own agent answers too.
    expect(await t.deepdesk(['run', ...base, 'say once more'], {}, '')).toMatchObject({ code: 0, stdout: 'once more\n' });
  });
});
