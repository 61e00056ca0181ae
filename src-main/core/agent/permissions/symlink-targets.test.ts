// Protected paths and path rules hold through symlinks (issue 9 §2): real links in real
// temp folders, the real FilesystemBackend and the real approval middleware.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { linkTargetOf } from '../../backends/filesystem/fs-resolve';
import { FilesystemBackend } from '../../backends/filesystem/filesystem';
import { createTestWorkspace, type TestWorkspace } from '../../tools/test-workspace.test-support';
import type { RunContext } from '../run-context';
import { approvalMiddleware } from '../middleware/approval';
import type { ApprovalDecision, ApprovalRequest } from '../types';
import { describeLinkTarget } from './link-target-text';
import { evaluatePermission, type PermissionRule } from './rules';

const GIT_CONFIG = '[core]\n\trepositoryformatversion = 0\n';
const allowDocs: PermissionRule[] = [
  { operations: ['write', 'edit', 'delete'], paths: ['/docs/**'], decision: 'allow' },
  { tools: ['*'], decision: 'allow' },
];

let ws: TestWorkspace;
let outside: string;

beforeEach(() => {
  ws = createTestWorkspace({ execute: false });
  outside = mkdtempSync(join(tmpdir(), 'deepdesk-outside-'));
  mkdirSync(join(ws.folder, '.git', 'hooks'), { recursive: true });
  mkdirSync(join(ws.folder, 'docs'));
  writeFileSync(join(ws.folder, '.git', 'config'), GIT_CONFIG);
});

afterEach(() => {
  ws.dispose();
  rmSync(outside, { recursive: true, force: true });
});

const link = (target: string, at: string) => symlinkSync(target, join(ws.folder, at));
const gitConfig = () => readFileSync(join(ws.folder, '.git', 'config'), 'utf8');

describe('linkTargetOf follows every kind of link', () => {
  it.each([
    ['a file link', () => link('../.git/config', 'docs/notes.md'), '/docs/notes.md', '/.git/config'],
    ['a folder link in the middle', () => link('../.git', 'docs/x'), '/docs/x/config', '/.git/config'],
    ['a new file under a linked folder', () => link('../.git', 'docs/x'), '/docs/x/hooks/pre-commit', '/.git/hooks/pre-commit'],
    ['a chain of links', () => { link('../.git/config', 'docs/c'); link('c', 'docs/b'); link('b', 'docs/a'); }, '/docs/a', '/.git/config'],
    ['a dangling link', () => link('../.git/hooks/pre-commit', 'docs/hook'), '/docs/hook', '/.git/hooks/pre-commit'],
    ['an absolute link', () => link(join(ws.folder, '.env'), 'docs/env'), '/docs/env', '/.env'],
  ])('%s', async (_name, make, path, expected) => {
    make();
    expect(await linkTargetOf(ws.folder, path)).toEqual({ virtual: expected });
  });

  it('is null without a link, on a loop, and names outside targets by their real path', async () => {
    writeFileSync(join(ws.folder, 'docs', 'plain.md'), 'x');
    expect(await linkTargetOf(ws.folder, '/docs/plain.md')).toBeNull();
    expect(await linkTargetOf(ws.folder, '/docs/new.md')).toBeNull();
    link('loop2', 'docs/loop1');
    link('loop1', 'docs/loop2');
    expect(await linkTargetOf(ws.folder, '/docs/loop1')).toBeNull();
    link(join(outside, 'secret'), 'docs/out');
    expect(await linkTargetOf(ws.folder, '/docs/out')).toEqual({ outside: join(outside, 'secret') });
  });
});

describe('evaluatePermission matches the resolved target as well as the named path', () => {
  const write = { tool: 'write_file', args: { file_path: '/docs/notes.md', content: 'x' } };
  it('a protected target asks even when the named path is allowed', () => {
    expect(evaluatePermission(write, allowDocs).decision).toBe('allow');
    const verdict = evaluatePermission(write, allowDocs, { resolvedTargets: { '/docs/notes.md': '/.git/config' } });
    expect(verdict.decision).toBe('ask');
    expect(verdict.reason).toContain('/.git/config');
    expect(verdict.reason).toContain('/docs/notes.md');
  });
  it('a deny on either side denies; allow needs both', () => {
    const rules: PermissionRule[] = [{ tools: ['write_file'], paths: ['/src/**'], decision: 'deny' }, ...allowDocs];
    expect(evaluatePermission(write, rules, { resolvedTargets: { '/docs/notes.md': '/src/main.ts' } }).decision).toBe('deny');
    const toSrc = { tool: 'write_file', args: { file_path: '/src/x.ts', content: 'x' } };
    expect(evaluatePermission(toSrc, rules, { resolvedTargets: { '/src/x.ts': '/docs/x.md' } }).decision).toBe('deny');
    const onlyDocs: PermissionRule[] = [{ tools: ['write_file'], paths: ['/docs/**'], decision: 'allow' }];
    expect(evaluatePermission(write, onlyDocs, { resolvedTargets: { '/docs/notes.md': '/lib/a.ts' } }).decision).toBe('ask');
  });
  it('read rules too', () => {
    const rules: PermissionRule[] = [{ operations: ['read'], paths: ['/secrets/**'], decision: 'deny' }];
    const read = { tool: 'read_file', args: { file_path: '/docs/key' } };
    expect(evaluatePermission(read, rules).decision).toBe('allow');
    expect(evaluatePermission(read, rules, { resolvedTargets: { '/docs/key': '/secrets/key' } }).decision).toBe('deny');
  });
});

/** The real approval middleware around a real tool call on the real backend. */
async function callThroughApproval(
  rules: PermissionRule[],
  tool: string,
  args: Record<string, unknown>,
  decide: (request: ApprovalRequest) => Promise<ApprovalDecision> | ApprovalDecision = () => ({ type: 'reject' }),
): Promise<{ text: string; asked: ApprovalRequest[] }> {
  const asked: ApprovalRequest[] = [];
  const middleware = approvalMiddleware({
    rules: () => rules,
    broker: {
      async decide(request) {
        asked.push(request);
        return decide(request);
      },
    },
  });
  const ctx = { threadId: 't', backend: ws.mounts.backend, signal: new AbortController().signal, depth: 0, emit: () => undefined, state: { messages: [] }, persist: async () => undefined } as unknown as RunContext;
  const call = { id: 'call-1', name: tool, args, argsText: JSON.stringify(args) };
  const output = await middleware.wrapToolCall!(ctx, { call, turnCalls: [call] }, (c) => ws.call(c.name, c.args as Record<string, unknown>));
  return { text: output.text, asked };
}

describe('the approval middleware asks about the resolved target and the write re-checks it', () => {
  it('docs/notes.md -> ../.git/config with /docs/** allowed: asks, and names both paths', async () => {
    link('../.git/config', 'docs/notes.md');
    await ws.run('read_file', { file_path: '/docs/notes.md' });
    const { text, asked } = await callThroughApproval(allowDocs, 'write_file', { file_path: '/docs/notes.md', content: '[core]\n\tfsmonitor = touch PWNED\n' });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.resolvedTarget).toBe('/.git/config');
    expect(asked[0]!.reason).toMatch(/\.git/);
    expect(describeLinkTarget('write_file', asked[0]!.args, asked[0]!.resolvedTarget)).toBe('Writes to /.git/config (via symlink /docs/notes.md)');
    expect(text).toMatch(/^Error: the person rejected/);
    expect(gitConfig()).toBe(GIT_CONFIG);
  });

  it.each([
    ['a linked folder', () => link('../.git', 'docs/x'), '/docs/x/config', '/.git/config'],
    ['a chain of links', () => { link('../.git/config', 'docs/c'); link('c', 'docs/b'); link('b', 'docs/a.md'); }, '/docs/a.md', '/.git/config'],
    ['a dangling link into .git/hooks', () => link('../.git/hooks/pre-commit', 'docs/hook'), '/docs/hook', '/.git/hooks/pre-commit'],
    ['a link to .env', () => { writeFileSync(join(ws.folder, '.env'), 'KEY=1\n'); link('../.env', 'docs/env.txt'); }, '/docs/env.txt', '/.env'],
  ])('%s asks', async (_name, make, path, target) => {
    make();
    await ws.run('read_file', { file_path: path });
    const { asked } = await callThroughApproval(allowDocs, 'write_file', { file_path: path, content: 'owned\n' });
    expect(asked.map((a) => a.resolvedTarget)).toEqual([target]);
    expect(gitConfig()).toBe(GIT_CONFIG);
  });

  it('edit and delete through a link ask too', async () => {
    link('../.git/config', 'docs/notes.md');
    await ws.run('read_file', { file_path: '/docs/notes.md' });
    const edit = await callThroughApproval(allowDocs, 'edit_file', { file_path: '/docs/notes.md', old_string: 'repositoryformatversion', new_string: 'fsmonitor' });
    expect(edit.asked).toHaveLength(1);
    link('../.git', 'docs/g');
    const del = await callThroughApproval(allowDocs, 'delete_file', { file_path: '/docs/g/config' });
    expect(del.asked).toHaveLength(1);
    expect(gitConfig()).toBe(GIT_CONFIG);
  });

  it('an outside target is shown by its real path to the person, never in the reason', async () => {
    link(join(outside, 'x.txt'), 'docs/out.txt');
    const { asked } = await callThroughApproval([{ tools: ['*'], decision: 'ask' }], 'write_file', { file_path: '/docs/out.txt', content: 'x' });
    expect(asked[0]!.resolvedTarget).toBe(`${join(outside, 'x.txt')} (outside the project folder)`);
    expect(asked[0]!.reason).not.toContain(outside);
  });

  it('a link swapped in after approval (TOCTOU) is checked again at write time and refused', async () => {
    mkdirSync(join(ws.folder, 'docs', 'sub'));
    const { text, asked } = await callThroughApproval([{ tools: ['write_file'], decision: 'ask' }], 'write_file', { file_path: '/docs/sub/pre-commit', content: '#!/bin/sh\ntouch PWNED\n' }, () => {
      // While the person looks at an innocent write, the folder becomes a link into .git/hooks.
      rmSync(join(ws.folder, 'docs', 'sub'), { recursive: true });
      link('../.git/hooks', 'docs/sub');
      return { type: 'approve' };
    });
    expect(asked[0]!.resolvedTarget).toBeUndefined();
    expect(text).toMatch(/^Error: .*now leads to '\/\.git\/hooks\/pre-commit'/);
    expect(text).not.toContain(ws.folder);
    expect(() => readFileSync(join(ws.folder, '.git', 'hooks', 'pre-commit'))).toThrow();
  });

  it('an allowed write whose folder becomes a link before the write is refused', async () => {
    const { text } = await callThroughApproval(allowDocs, 'write_file', { file_path: '/docs/sub/hooks/pre-commit', content: '#!/bin/sh\n' }, () => ({ type: 'approve' }));
    expect(text).toMatch(/^Updated file/);
    // Now the same allowed call, but docs/sub is a link to .git by the time it runs.
    rmSync(join(ws.folder, 'docs', 'sub'), { recursive: true });
    const middleware = approvalMiddleware({ rules: () => allowDocs, broker: { decide: async () => ({ type: 'reject' }) } });
    const ctx = { threadId: 't', backend: ws.mounts.backend, signal: new AbortController().signal, depth: 0, emit: () => undefined, state: { messages: [] }, persist: async () => undefined } as unknown as RunContext;
    const call = { id: 'call-2', name: 'write_file', args: { file_path: '/docs/sub/hooks/pre-commit', content: '#!/bin/sh\ntouch PWNED\n' }, argsText: '' };
    const out = await middleware.wrapToolCall!(ctx, { call, turnCalls: [call] }, (c) => {
      link('../.git', 'docs/sub');
      return ws.call(c.name, c.args as Record<string, unknown>);
    });
    expect(out.text).toMatch(/^Error: /);
    expect(() => readFileSync(join(ws.folder, '.git', 'hooks', 'pre-commit'))).toThrow();
  });

  it('without an agent guard (the person\'s tools session) a write through a link is not second-guessed', async () => {
    link('../.git/config', 'docs/notes.md');
    const fs = new FilesystemBackend({ rootDir: ws.folder });
    expect((await fs.write('/docs/notes.md', 'mine\n')).error).toBeUndefined();
  });
});

describe('protected-path matching stays linear on hostile paths', () => {
  it('a 3,000-folder path in a command word is checked in work linear in its folders', async () => {
    const { protectedPattern, PROTECTED_PATHS } = await import('./protected-paths');
    const deep = 'a/'.repeat(3000) + 'x';
    const hostile = '**/a/**/a/**/zz';
    // At most once per (name of a pattern, folder of the path); retrying `**` without memory
    // would be quadratic or worse. Each pattern's names are regular expressions: count their runs,
    // and stop a matcher that goes past the bound.
    const bound = 2 * [...PROTECTED_PATHS, hostile].reduce((n, p) => n + p.split('/').length, 0) * 3004;
    const test = RegExp.prototype.test;
    let runs = 0;
    const counted = vi.spyOn(RegExp.prototype, 'test').mockImplementation(function (this: RegExp, text: string) {
      if (++runs > bound) throw new Error(`more than ${bound} name tests: not linear`);
      return test.call(this, text);
    });
    try {
      expect(protectedPattern(deep, undefined, true)).toBeNull();
      expect(protectedPattern(deep + '/.git/config', undefined, true)).toBe('**/.git/**');
      expect(protectedPattern('sub/' + '.deepdesk/x', undefined, true)).toBe('/.deepdesk/**');
      // Two `**` around names found everywhere but the last.
      expect(protectedPattern(deep, [hostile], true)).toBeNull();
    } finally {
      counted.mockRestore();
    }
    expect(runs).toBeGreaterThan(3000);
  });
});
