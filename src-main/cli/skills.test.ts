// `deepdesk skills ls [--folder DIR]` through the built bin, with HOME pointed at a temp
// folder: a line a skill (`NAME  SOURCE  PATH`), `(only as /NAME)` for the ones the model is
// not told about, the project's untrusted ones marked, and every problem on stderr.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-skills-cli');
let home: string;
beforeEach(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-skills-home-')));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function writeSkill(parent: string, name: string, text: string): string {
  mkdirSync(join(parent, name), { recursive: true });
  const file = join(parent, name, 'SKILL.md');
  writeFileSync(file, text);
  return file;
}

describe('deepdesk skills ls', () => {
  it('lists the skills, marks the untrusted and the /name-only ones, and prints problems on stderr', async () => {
    const pdf = writeSkill(join(home, '.agents', 'skills'), 'pdf', '---\nname: pdf\ndescription: PDFs.\n---\nbody');
    const deploy = writeSkill(join(home, '.claude', 'skills'), 'deploy', '---\nname: deploy\ndescription: Deploy.\ndisable-model-invocation: true\n---\nbody');
    const proj = writeSkill(join(t.folder, '.claude', 'skills'), 'lint', '---\nname: lint\ndescription: Lint.\n---\nbody');
    const bad = writeSkill(join(t.dataDir, 'skills'), 'bad', '---\nname: bad\n---\nbody');

    const before = await t.deepdesk(['skills', 'ls', '--folder', t.folder], { HOME: home });
    expect(before.code).toBe(0);
    const row = (name: string, source: string, path: string): string => `${name.padEnd(6)}  ${source.padEnd(21)}  ${path}`;
    expect(before.stdout).toBe([row('deploy', 'user', `${deploy} (only as /deploy)`), row('pdf', 'user', pdf), row('lint', 'project (not trusted)', proj), ''].join('\n'));
    expect(before.stderr).toBe(`deepdesk: ${bad}: description: missing\n`);

    const trust = await t.deepdesk(['trust', '--folder', t.folder], { HOME: home });
    expect(trust.stdout).toContain('Skill lint: .claude/skills/lint/SKILL.md');
    const after = await t.deepdesk(['skills', 'ls', '--folder', t.folder], { HOME: home });
    expect(after.stdout.split('\n')).toContain(`lint    project  ${proj}`);
  });

  it('says what the prompt list leaves out for a context window', async () => {
    for (let i = 0; i < 30; i++) writeSkill(join(home, '.agents', 'skills'), `s${i}`, `---\nname: s${i}\ndescription: ${'long words '.repeat(50)}\n---\n`);
    const result = await t.deepdesk(['skills', 'ls', '--folder', t.folder, '--context-window', '10000'], { HOME: home });
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(30);
    expect(result.stderr).toMatch(/^deepdesk: the prompt's skill list \(200 tokens\) leaves out \d+: /m);
  });

  it('is bad usage without ls', async () => {
    const result = await t.deepdesk(['skills', '--folder', t.folder], { HOME: home });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('deepdesk skills ls');
  });
});
