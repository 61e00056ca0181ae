// Every configuration reader refuses a FIFO at once (a cloned folder's `.mcp.json`, a
// person's settings): each read here would block forever on a FIFO opened the ordinary way.
// A writer opens each FIFO after 45 s, leaving a mark just before, so that a reader that did
// block comes back (with nothing read) and the test fails on that mark instead of hanging.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readHooksFile } from '../extensions/hooks/config';
import { readMarkdownPlaces } from '../extensions/definitions/markdown-files';
import { readPlugin } from '../extensions/plugins/manifest';
import { scanSkillsDir } from '../extensions/skills/discover';
import type { SkillProblem } from '../extensions/skills/types';
import { spawnPipe } from '../process/spawn';
import { readClaudeSettings } from './claude-settings';
import { fieldsShape, JsonFileStore } from './json-file-store';
import { readMcpConfigFile, removeServerEntry, writeServerEntry } from './mcp-config';
import { readConfigFile } from './read-config-file';
import { z } from 'zod';

let dir: string;
const writers: Array<ReturnType<typeof spawnPipe>> = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dd-fifo-'));
});
afterEach(() => {
  // Each writer with its sleep (a group of its own).
  for (const w of writers.splice(0)) if (w.pid !== undefined) process.kill(-w.pid, 'SIGKILL');
  released.length = 0;
  rmSync(dir, { recursive: true, force: true });
});

/** A FIFO at `path`, and a writer that would release a blocked reader after 45 s (marking `${path}.released` first). */
function fifo(path: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  execFileSync('mkfifo', [path]);
  writers.push(spawnPipe({ role: 'probe', file: '/bin/sh', args: ['-c', `sleep 45; : > '${path}.released'; : > '${path}'`], stdio: 'ignore', detached: true }));
  released.push(`${path}.released`);
  return path;
}
const released: string[] = [];

/** Runs `read` and checks it came back without waiting for any FIFO's writer. */
function promptly<T>(read: () => T): T {
  const value = read();
  expect(released.filter((mark) => existsSync(mark)), 'a read waited for a FIFO to be opened').toEqual([]);
  return value;
}

describe('a configuration file that is a FIFO is refused at once', () => {
  it('by the reader itself', () => {
    const read = promptly(() => readConfigFile(fifo(join(dir, 'x.json'))));
    expect(read).toMatchObject({ ok: false, missing: false, message: 'is not a regular file' });
  });

  it('.mcp.json: read, added to and removed from', () => {
    const file = fifo(join(dir, '.mcp.json'));
    expect(promptly(() => readMcpConfigFile(file, 'project', {})).problems.map((p) => p.message)).toEqual(['is not a regular file']);
    expect(() => promptly(() => writeServerEntry(file, 'x', { command: 'x' }))).toThrow(/cannot edit .*is not a regular file/);
    expect(() => promptly(() => removeServerEntry(file, 'x'))).toThrow(/cannot edit .*is not a regular file/);
  });

  it("a FIFO where a file's lock goes (.mcp.json.lock in a cloned folder) is taken over at once, and the edit done", () => {
    const file = join(dir, '.mcp.json');
    writeFileSync(file, '{"mcpServers": {}}');
    fifo(`${file}.lock`);
    promptly(() => writeServerEntry(file, 'x', { command: 'x' }));
    expect(readMcpConfigFile(file, 'project', {}).servers.map((s) => s.name)).toEqual(['x']);
  });

  it('Claude settings, hooks and a plugin manifest', () => {
    expect(promptly(() => readClaudeSettings(fifo(join(dir, 'settings.json')))).problems).toEqual([`${join(dir, 'settings.json')}: is not a regular file`]);
    expect(promptly(() => readHooksFile(fifo(join(dir, 'hooks.json')), 'project')).problems.map((p) => p.message)).toEqual(['is not a regular file']);
    const plugin = join(dir, 'plugin');
    fifo(join(plugin, '.claude-plugin', 'plugin.json'));
    expect(promptly(() => readPlugin(plugin))).toMatchObject({ problem: expect.stringMatching(/plugin\.json: is not a regular file$/) });
  });

  it("a store's own file (settings.json, secrets.json): set aside and told, the defaults apply", () => {
    const problems: string[] = [];
    const file = fifo(join(dir, 'settings.json'));
    const store = new JsonFileStore({ path: file, shape: fieldsShape({ model: z.string().optional() }), onProblem: (p) => problems.push(p.message) });
    try {
      expect(promptly(() => store.current())).toEqual({});
      expect(problems.join('\n')).toMatch(/not a regular file/);
    } finally {
      store.close();
    }
  });

  it("a skill's SKILL.md and a command's markdown", () => {
    const skills = join(dir, 'skills');
    fifo(join(skills, 'fifo-skill', 'SKILL.md'));
    const problems: SkillProblem[] = [];
    expect(promptly(() => scanSkillsDir(skills, problems))).toEqual([]);
    const commands = join(dir, 'commands');
    mkdirSync(commands);
    writeFileSync(join(commands, 'ok.md'), '---\ndescription: fine\n---\nbody\n');
    fifo(join(commands, 'fifo.md'));
    const read = promptly(() => readMarkdownPlaces([{ dir: commands, source: 'project' }], { recursive: false }));
    expect(read.found.map((d) => d.relName)).toEqual(['ok']);
  });
});
