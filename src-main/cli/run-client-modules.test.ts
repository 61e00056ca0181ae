// What a warm `deepdesk run` loads (issue 66: a warm run within 100 ms). Starting an agent
// host (node:child_process) and asking the person a question (node:readline) are loaded when
// they happen, not by every run: seen by effect, every module the command resolves is logged
// by a resolve hook given through NODE_OPTIONS, to a run whose host is already up (started
// without the hook). The first run, which starts the host, shows the lazy start still works.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../core/sandbox';
import { moduleLogEnv, repo, useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-run-modules');
const sandboxed = (await detectSandbox()).available;

describe('a warm deepdesk run', () => {
  it('loads no process-starting or question-asking module; the run that starts the host still starts it', async () => {
    const flags = ['run', '--folder', t.folder, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, 'hi'];
    t.server.push({ text: 'first' });
    const first = await t.deepdesk(flags);
    expect(first.stderr).toBe('');
    expect(first.stdout.trim()).toBe('first');
    expect(readFileSync(join(t.dataDir, 'host', 'host.log'), 'utf8')).toMatch(/host up: pid \d+/);

    const log = join(t.dataDir, 'modules.log');
    writeFileSync(log, '');
    const logged = moduleLogEnv(t.dataDir, log);
    t.server.push({ text: 'second' });
    const second = await t.deepdesk(flags, logged);
    expect(second.stderr).toBe('');
    expect(second.stdout.trim()).toBe('second');
    const modules = readFileSync(log, 'utf8').split('\n');
    // The hook saw the command's own modules: the run's chunk and the socket it talks over.
    expect(modules.some((url) => /\/out\/main\/chunks\/run-command-[^/]+\.js$/.test(url))).toBe(true);
    expect(modules).toContain('node:net');
    expect(modules.filter((url) => /^node:(child_process|readline)/.test(url))).toEqual([]);
    // node:util and node:crypto are taken from the modules themselves (process.getBuiltinModule):
    // their ESM faces would load worker_threads and Web Crypto.
    expect(modules.filter((url) => /^node:(util|crypto)$/.test(url))).toEqual([]);
    // Nor node:crypto by process.getBuiltinModule (the thread's id is read from the random device).
    expect(modules.filter((name) => name === 'builtin:crypto')).toEqual([]);
    // zod's classic schemas (the goal record's, built when loaded) are the host's: the run's
    // client checks its frames with zod/mini alone.
    const chunkText = (urls: string[]) => urls.filter((url) => /\/out\/main\/chunks\//.test(url)).map((url) => readFileSync(new URL(url), 'utf8'));
    expect(chunkText(modules).some((text) => text.includes('$constructor("ZodObject"'))).toBe(false);

    // `--version` loads none of those, and no zod (the command table builds no schema).
    writeFileSync(log, '');
    const version = await t.deepdesk(['--version'], logged);
    expect(version.stdout).toMatch(/^deepdesk \d+\.\d+\.\d+/);
    const versionModules = readFileSync(log, 'utf8').split('\n').filter((url) => url !== '');
    expect(versionModules.filter((url) => /^node:(child_process|readline|util|crypto|net)/.test(url))).toEqual([]);
    expect(chunkText(versionModules).some((text) => text.includes('$ZodObject'))).toBe(false);
  }, 60_000);

  it.skipIf(!sandboxed)('with another agent installed: loads neither the install nor the plugins’ modules (YAML, processes, questions)', async () => {
    const script = join(repo, 'src-main/core/acp-client/testing/scripted-acp-agent.mjs');
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ agents: { added: [{ name: 'scripted', command: process.execPath, args: [script], env: {} }] } }));
    const flags = ['run', '--json', '--folder', t.folder, '--data-dir', t.dataDir, '--agent', 'scripted', 'say first token'];
    expect((await t.deepdesk(flags)).code).toBe(0);
    const log = join(t.dataDir, 'modules.log');
    writeFileSync(log, '');
    const ran = await t.deepdesk(flags, moduleLogEnv(t.dataDir, log));
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('"type":"text"');
    const modules = readFileSync(log, 'utf8').split('\n');
    expect(modules.some((url) => /\/out\/main\/chunks\/run-command-[^/]+\.js$/.test(url))).toBe(true);
    expect(modules.filter((url) => /^node:(child_process|readline)/.test(url) || /\/node_modules\/yaml\//.test(url))).toEqual([]);
    // Nor the ESM faces of node:util and node:crypto: the install's check reads the vendors' modules.
    expect(modules.filter((url) => /^node:(util|crypto)$/.test(url))).toEqual([]);
  }, 60_000);
});
