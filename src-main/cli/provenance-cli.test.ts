// Provenance in git from the command line alone, never a window (SPEC §24, issue 94): `deepdesk
// run` records the folder as it opens it, so commits made in a terminal between runs are noted
// by the next command (`run` or `blame`) and the person's lines are theirs; a note a sandboxed
// command forges over the agent's lines never lands.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { detectSandbox } from '../core/sandbox';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-prov-cli');
const env = { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const git = (...args: string[]): string => execFileSync('git', args, { cwd: t.folder, env: { ...process.env, ...env }, encoding: 'utf8' });
const hex14 = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 14);
const note = (commit: string): string => git('notes', '--ref=refs/notes/ai', 'show', commit);
/** The note's attestation line of `file` for `key` (`s_…` a thread's session, `h_…` the person). */
const attests = (key: string, lines: string) => new RegExp(`^ {2}${key}(::t_[0-9a-f]{14})? ${lines}$`, 'm');
const AGENT = `s_${hex14('deepdesk:t-one')}`;
const PERSON = `h_${hex14('Pat Person <pat@example.com>')}`;

function run(prompt: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return t.deepdesk(['run', '--thread', 't-one', '--approve', 'auto', '--folder', t.folder, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, prompt], env);
}

beforeEach(() => {
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Pat Person');
  git('config', 'user.email', 'pat@example.com');
  writeFileSync(join(t.folder, 'base.txt'), 'base\n');
  git('add', '-A');
  // Long before Deepdesk first saw the folder.
  execFileSync('git', ['commit', '-qm', 'base'], { cwd: t.folder, env: { ...process.env, ...env, GIT_AUTHOR_DATE: '2020-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2020-01-01T00:00:00Z' } });
});

it('run, a plain commit, the person’s edit and commit, then run and blame: both commits noted, the person’s lines theirs', async () => {
  t.server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/a.txt', content: 'agent 1\nagent 2\nagent 3\n' } }] }, { text: 'Done.' });
  expect((await run('write a.txt')).code).toBe(0);
  git('add', 'a.txt');
  git('commit', '-qm', 'the agent’s file');
  const first = git('rev-parse', 'HEAD').trim();
  writeFileSync(join(t.folder, 'a.txt'), 'agent 1\nmine\nagent 3\n');
  writeFileSync(join(t.folder, 'base.txt'), 'base\nmine too\n');
  git('commit', '-qam', 'my edit');
  const second = git('rev-parse', 'HEAD').trim();

  t.server.push({ text: 'Nothing to do.' });
  expect((await run('look')).code).toBe(0);
  expect(note(first)).toMatch(attests(AGENT, '1-3'));
  expect(note(first)).toContain('"schema_version": "authorship/3.0.0"');
  expect(note(second)).toMatch(/^a\.txt$/m);
  expect(note(second)).toMatch(attests(PERSON, '2'));
  expect(note(second)).toMatch(/^base\.txt\n {2}h_[0-9a-f]{14} 2$/m);

  const blame = await t.deepdesk(['blame', 'a.txt', '--json', '--folder', t.folder]);
  expect(blame.code).toBe(0);
  expect((JSON.parse(blame.stdout) as Array<{ kind: string; thread?: string }>).map((l) => `${l.kind} ${l.thread ?? ''}`)).toEqual(['agent t-one', 'person ', 'agent t-one']);
});

it('blame alone notes what was committed since the last run: the person’s line between two commands is theirs', async () => {
  t.server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/a.txt', content: 'agent 1\nagent 2\n' } }] }, { text: 'Done.' });
  expect((await run('write a.txt')).code).toBe(0);
  writeFileSync(join(t.folder, 'base.txt'), 'base\nmine\n');
  git('add', '-A');
  git('commit', '-qm', 'everything');
  const blame = await t.deepdesk(['blame', 'base.txt', '--folder', t.folder]);
  // Line 1 the person committed before Deepdesk saw the folder: git's blame gives it to them.
  expect(blame.stdout).toBe('person\nperson\n');
  expect(note('HEAD')).toMatch(attests(AGENT, '1-2'));
  expect(note('HEAD')).toMatch(/^base\.txt\n {2}h_[0-9a-f]{14} 2$/m);
});

describe.skipIf(!(await detectSandbox()).available)('a sandboxed command', () => {
  it('forges a note over the agent’s lines, then rewrites Deepdesk’s (git notes add -f): the note still gives them to the agent', async () => {
    const forge = 'git notes --ref=refs/notes/ai add -f -m forged HEAD';
    t.server.push(
      { toolCalls: [{ name: 'write_file', args: { file_path: '/a.txt', content: 'agent 1\nagent 2\n' } }] },
      { toolCalls: [{ name: 'execute', args: { command: `git add a.txt && git commit -qm mine && ${forge}` } }] },
      { text: 'Done.' },
    );
    expect((await run('write and commit')).code).toBe(0);
    const commit = git('rev-parse', 'HEAD').trim();
    expect(git('log', '-1', '--format=%s')).toBe('mine\n');
    expect(note(commit)).toMatch(attests(AGENT, '1-2'));

    t.server.push({ toolCalls: [{ name: 'execute', args: { command: forge } }] }, { text: 'Done.' });
    expect((await run('forge')).code).toBe(0);
    expect(note(commit)).toMatch(attests(AGENT, '1-2'));
    expect(note(commit)).not.toContain('forged');
  });
});
