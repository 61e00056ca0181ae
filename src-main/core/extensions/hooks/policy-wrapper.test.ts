// The policy wrapper (SPEC §11, the seeds' PolicyWrapper) around a real FilesystemBackend: a
// denied operation never reaches the disk; what is allowed behaves as the backend does; a
// person's PreToolUse hook works as a policy.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadHooks } from './config';
import { FilesystemBackend } from '../../backends/filesystem/filesystem';
import { LocalShellBackend } from '../../backends/filesystem/local-shell';
import { hookPolicy, withPolicies, type Policy, type PolicyRequest } from './policy-wrapper';
import { isShellBackend } from '../../backends/protocol';

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-policy-')));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const noSecrets: Policy = (request) => (request.path?.startsWith('/secrets/') ? { decision: 'deny', reason: 'secrets are off limits' } : undefined);

describe('withPolicies', () => {
  it('a denied write never touches the disk; an allowed one is written', async () => {
    const backend = withPolicies(new FilesystemBackend({ rootDir: root }), [noSecrets]);
    expect(await backend.write('/secrets/key.txt', 'k')).toEqual({ error: 'blocked by policy: secrets are off limits' });
    expect(existsSync(join(root, 'secrets'))).toBe(false);
    expect((await backend.write('/notes.txt', 'hello')).error).toBeUndefined();
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('hello');
  });

  it('checks edits, deletes, reads, searches and transfers too, each as the tool call that does it', async () => {
    writeFileSync(join(root, 'a.txt'), 'one\n');
    const seen: PolicyRequest[] = [];
    const denyAll: Policy = (request) => {
      seen.push(request);
      return { decision: 'deny', reason: 'read-only review' };
    };
    const backend = withPolicies(new FilesystemBackend({ rootDir: root }), [denyAll]);
    expect((await backend.edit('/a.txt', 'one', 'two')).error).toBe('blocked by policy: read-only review');
    expect((await backend.delete('/a.txt')).error).toBe('blocked by policy: read-only review');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\n');
    expect((await backend.read('/a.txt')).error).toBe('blocked by policy: read-only review');
    expect((await backend.ls('/')).error).toBeDefined();
    expect((await backend.grep('one')).error).toBeDefined();
    expect((await backend.glob('*.txt')).error).toBeDefined();
    expect(await backend.uploadFiles([{ path: '/b.txt', content: new TextEncoder().encode('b') }])).toEqual([{ path: '/b.txt', error: 'permission_denied' }]);
    expect(existsSync(join(root, 'b.txt'))).toBe(false);
    expect(await backend.downloadFiles(['/a.txt'])).toEqual([{ path: '/a.txt', error: 'permission_denied' }]);
    expect(seen.map((r) => `${r.operation} ${r.tool}`)).toEqual([
      'edit edit_file',
      'delete delete',
      'read read_file',
      'read ls',
      'read grep',
      'read glob',
      'write write_file',
      'read read_file',
    ]);
    expect(seen[0]!.input).toEqual({ file_path: '/a.txt', old_string: 'one', new_string: 'two' });
  });

  it('a shell backend stays one, and a denied command does not run', async () => {
    const backend = withPolicies(new LocalShellBackend({ rootDir: root }), [(r) => (r.operation === 'execute' ? { decision: 'deny', reason: 'no commands' } : undefined)]);
    expect(isShellBackend(backend)).toBe(true);
    if (!isShellBackend(backend)) return;
    const result = await backend.execute('touch ran');
    expect(result.output).toBe('Error: blocked by policy: no commands');
    expect(existsSync(join(root, 'ran'))).toBe(false);
  });

  it('a person\'s PreToolUse hook is a policy: its deny refuses the write, with the hook named', async () => {
    const data = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-policy-hooks-')));
    try {
      writeFileSync(
        join(data, 'hooks.json'),
        JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: `cat > "${data}/stdin.json"; echo "generated files are read-only" >&2; exit 2` }] }] } }),
      );
      const { hooks } = loadHooks({ dataDir: data, isTrusted: () => false });
      const backend = withPolicies(new FilesystemBackend({ rootDir: root }), [hookPolicy(() => hooks, { folder: root })]);
      const denied = await backend.write('/gen/out.ts', 'x');
      expect(denied.error).toBe(`blocked by policy: hook ${hooks[0]!.command}: generated files are read-only`);
      expect(existsSync(join(root, 'gen'))).toBe(false);
      expect(JSON.parse(readFileSync(join(data, 'stdin.json'), 'utf8'))).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'write_file', tool_input: { file_path: '/gen/out.ts', content: 'x' }, cwd: root });
      // Not matched (the hook is for writes): reads run no hook.
      expect((await backend.ls('/')).error).toBeUndefined();
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
});
