// `--mount` and `--memories-store` through the built bin (SPEC §5, §13): a tools session with
// a local mount, a read-only one (writes refused, the folder untouched) and a git mount on a
// file:// bare repository (each call that changes it one commit, pushed); `run --mount` (the
// agent reads a mounted file and cannot write a read-only one); bad values exit 2 with the
// reason; Settings' mounts apply and a flag wins at its prefix.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeRemote, remoteFile, remoteSubjects } from '../core/backends/git-mount/git-mount.test-support';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-mounts');

async function tools(args: string[], calls: unknown[]) {
  const r = await t.deepdesk(['tools', '--folder', t.folder, ...args], {}, calls.map((c) => JSON.stringify(c)).join('\n') + '\n');
  return { ...r, outputs: r.stdout.trim() === '' ? [] : r.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { output: string }).output) };
}

describe('deepdesk tools --mount', () => {
  it('mounts a local folder and a read-only one: ls / shows them, reads work, ro: writes are refused', async () => {
    const docs = join(t.dataDir, 'docs');
    const ref = join(t.dataDir, 'ref');
    mkdirSync(docs);
    mkdirSync(ref);
    writeFileSync(join(ref, 'api.md'), 'the api\n');
    const r = await tools(
      ['--mount', `/docs/=${docs}`, '--mount', `/ref/=ro:${ref}`],
      [
        { tool: 'ls', args: { path: '/' } },
        { tool: 'read_file', args: { file_path: '/ref/api.md' } },
        { tool: 'write_file', args: { file_path: '/ref/new.md', content: 'x' } },
        { tool: 'write_file', args: { file_path: '/docs/new.md', content: 'written\n' } },
      ],
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.outputs[0]).toContain('/docs/');
    expect(r.outputs[0]).toContain('/ref/');
    expect(r.outputs[1]).toContain('the api');
    expect(r.outputs[2]).toBe("Error: '/ref/new.md' is on a read-only mount");
    expect(r.outputs[3]).toBe('Updated file /docs/new.md');
    expect(existsSync(join(ref, 'new.md'))).toBe(false);
    expect(readFileSync(join(docs, 'new.md'), 'utf8')).toBe('written\n');
  }, 60_000);

  it('a git mount on a file:// bare repository: each call that changes it is one commit, pushed', async () => {
    const bare = makeRemote(t.dataDir, { 'readme.md': 'hello\n' });
    const r = await tools(
      ['--mount', `/kb/=git+file://${bare}#main`],
      [
        { tool: 'read_file', args: { file_path: '/kb/readme.md' } },
        { tool: 'write_file', args: { file_path: '/kb/a.md', content: 'alpha\n' } },
        { tool: 'ls', args: { path: '/kb' } },
        { tool: 'write_file', args: { file_path: '/kb/b.md', content: 'beta\n' } },
      ],
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.outputs[0]).toContain('hello');
    expect(r.outputs[1]).toBe('Updated file /kb/a.md');
    expect(r.outputs[3]).toBe('Updated file /kb/b.md');
    const log = remoteSubjects(bare);
    expect(log).toHaveLength(3);
    expect(log[0]).toMatch(/^deepdesk: write_file \/kb\/b\.md/);
    expect(log[1]).toMatch(/^deepdesk: write_file \/kb\/a\.md/);
    expect(remoteFile(bare, 'a.md')).toBe('alpha\n');
    // The clone lives in the data folder, never in the project folder.
    expect(existsSync(join(t.dataDir, 'mounts'))).toBe(true);
    expect(existsSync(join(t.folder, '.git'))).toBe(false);
  }, 90_000);

  it('bad values are bad usage (exit 2) with the reason', async () => {
    const cases: [string[], RegExp][] = [
      [['--mount', '/memories/x/=/tmp'], /--mount \/memories\/x\/=\/tmp: \/memories\/ is Deepdesk's own folder/],
      [['--mount', '/a/../b/=/tmp'], /contains '\.\.'/],
      [['--mount', '/a/=/tmp', '--mount', '/a=/var'], /mounted twice/],
      [['--mount', `/a/=${join(t.dataDir, 'missing')}`], /folder not found/],
      [['--mount', '/a/=git+ext::sh -c x'], /space|not a git URL/],
      [['--mount', 'nothing'], /not \/PREFIX\/=SPEC/],
      [['--memories-store', 'postgres://me:secret@127.0.0.1/team'], /PGPASSWORD or ~\/\.pgpass/],
      [['--memories-store', 'mongodb://x'], /sqlite or a postgres/],
    ];
    for (const [args, why] of cases) {
      const r = await tools(args, []);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(why);
      expect(r.stderr).not.toContain('secret');
    }
    const memories = await t.deepdesk(['memories', 'ls', '--memories-store', 'postgres://me:secret@127.0.0.1/team']);
    expect(memories.code).toBe(2);
    expect(memories.stderr).toMatch(/--memories-store: .*PGPASSWORD/);
  }, 90_000);

  it("takes Settings' mounts, a flag winning at its prefix", async () => {
    const saved = join(t.dataDir, 'saved');
    const flagged = join(t.dataDir, 'flagged');
    mkdirSync(saved);
    mkdirSync(flagged);
    writeFileSync(join(saved, 'which.md'), 'saved\n');
    writeFileSync(join(flagged, 'which.md'), 'flagged\n');
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ mounts: [{ prefix: '/s/', spec: `ro:${saved}` }, { prefix: '/f/', spec: saved }] }));
    const r = await tools(['--mount', `/f/=${flagged}`], [
      { tool: 'read_file', args: { file_path: '/s/which.md' } },
      { tool: 'read_file', args: { file_path: '/f/which.md' } },
      { tool: 'write_file', args: { file_path: '/s/x.md', content: 'x' } },
    ]);
    expect(r.code).toBe(0);
    expect(r.outputs[0]).toContain('saved');
    expect(r.outputs[1]).toContain('flagged');
    expect(r.outputs[2]).toMatch(/read-only mount/);
  }, 60_000);
});

describe('deepdesk run --mount', () => {
  it('the agent reads a mounted file and cannot write to a read-only mount', async () => {
    const ref = join(t.dataDir, 'ref');
    mkdirSync(ref);
    writeFileSync(join(ref, 'facts.md'), 'the sky is green\n');
    t.server.push(
      { toolCalls: [{ name: 'read_file', args: { file_path: '/ref/facts.md' } }] },
      { toolCalls: [{ name: 'write_file', args: { file_path: '/ref/new.md', content: 'x' } }] },
      { text: 'done' },
    );
    const r = await t.deepdesk(['run', '--folder', t.folder, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, '--approve', 'auto', '--json', '--mount', `/ref/=ro:${ref}`, 'read it']);
    expect(r.code).toBe(0);
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; name?: string; output?: string });
    const results = events.filter((e) => e.type === 'tool_result');
    expect(results[0]?.output).toContain('the sky is green');
    expect(results[1]?.output).toBe("Error: '/ref/new.md' is on a read-only mount");
    expect(existsSync(join(ref, 'new.md'))).toBe(false);
    // The model saw the mount in its tool results.
    expect(JSON.stringify(t.server.requests[1]?.messages)).toContain('the sky is green');
  }, 90_000);
});
