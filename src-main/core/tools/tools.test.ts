import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestWorkspace, type TestWorkspace } from './test-workspace.test-support';

let ws: TestWorkspace;
const put = (rel: string, content: string | Buffer) => {
  const full = join(ws.folder, rel);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, content);
};
const disk = (rel: string) => readFileSync(join(ws.folder, rel), 'utf8');

beforeEach(() => {
  ws = createTestWorkspace();
});
afterEach(() => ws.dispose());

describe('path validation (SPEC §1)', () => {
  it.each([
    ['../etc/passwd'],
    ['/a/../../etc/passwd'],
    ['~/secrets'],
    ['C:\\Windows\\win.ini'],
    ['D:/x'],
    ['/a\0b'],
  ])('refuses %j before any backend call', async (bad) => {
    for (const [tool, args] of [
      ['read_file', { file_path: bad }],
      ['write_file', { file_path: bad, content: 'x' }],
      ['edit_file', { file_path: bad, old_string: 'a', new_string: 'b' }],
      ['ls', { path: bad }],
      ['glob', { pattern: '*', path: bad }],
      ['grep', { pattern: 'x', path: bad }],
    ] as const) {
      const out = await ws.run(tool, args);
      expect(out, `${tool} ${bad}`).toMatch(/^Error: /);
    }
    expect(existsSync(join(ws.folder, '..', 'etc'))).toBe(false);
  });

  it('normalises backslashes, doubled slashes, /./ and a missing leading slash', async () => {
    put('dir/file.txt', 'hello\n');
    for (const p of ['dir/file.txt', '/dir//file.txt', '/./dir/./file.txt', '\\dir\\file.txt', 'dir\\file.txt']) {
      expect(await ws.run('read_file', { file_path: p })).toBe('     1\thello');
    }
  });

  it('refuses symlinks that leave the folder without revealing the real root', async () => {
    const outside = createTestWorkspace({ execute: false });
    try {
      writeFileSync(join(outside.folder, 'secret.txt'), 'top secret\n');
      symlinkSync(join(outside.folder, 'secret.txt'), join(ws.folder, 'link.txt'));
      symlinkSync(outside.folder, join(ws.folder, 'linkdir'));
      const read = await ws.run('read_file', { file_path: '/link.txt' });
      expect(read).toMatch(/^Error: /);
      expect(read).not.toContain(ws.folder);
      expect(read).not.toContain(outside.folder);
      const write = await ws.run('write_file', { file_path: '/linkdir/new.txt', content: 'x' });
      expect(write).toMatch(/^Error: /);
      expect(existsSync(join(outside.folder, 'new.txt'))).toBe(false);
    } finally {
      outside.dispose();
    }
  });
});

describe('ls', () => {
  it('lists entries sorted with the exact line formats and always shows /memories/', async () => {
    put('b.txt', '1234');
    put('a/x.ts', 'x');
    put('.env', 'K=V');
    expect(await ws.run('ls', {})).toBe(['/.env (3 bytes)', '/a/ (directory)', '/b.txt (4 bytes)', '/memories/ (directory)'].join('\n'));
    expect(await ws.run('ls', { path: '/a' })).toBe('/a/x.ts (1 bytes)');
  });

  it('says No files found for an empty folder and errors on a missing one', async () => {
    mkdirSync(join(ws.folder, 'empty'));
    expect(await ws.run('ls', { path: '/empty' })).toBe('No files found');
    expect(await ws.run('ls', { path: '/x' })).toBe("Error: Path '/x' not found");
  });

  it('shows thread folders only when they hold something', async () => {
    expect(await ws.run('ls', { path: '/' })).not.toContain('/large_tool_results/');
    await ws.mounts.threadFiles.largeResults.write('/call_1', 'big');
    expect(await ws.run('ls', { path: '/' })).toContain('/large_tool_results/ (directory)');
    expect(await ws.run('ls', { path: '/large_tool_results' })).toBe('/large_tool_results/call_1 (3 bytes)');
  });
});

describe('read_file', () => {
  it('numbers lines like cat -n and pages with the exact continue notice', async () => {
    put('f.txt', Array.from({ length: 150 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
    const first = await ws.run('read_file', { file_path: '/f.txt' });
    const lines = first.split('\n');
    expect(lines[0]).toBe('     1\tline 1');
    expect(lines[99]).toBe('   100\tline 100');
    expect(lines[100]).toBe('');
    expect(lines[101]).toBe('[Showing lines 1-100 of 150. Continue with offset=100.]');
    expect(lines).toHaveLength(102);
    const next = await ws.run('read_file', { file_path: '/f.txt', offset: 100 });
    expect(next.split('\n')[0]).toBe('   101\tline 101');
    expect(next.endsWith('   150\tline 150')).toBe(true);
    expect(await ws.run('read_file', { file_path: '/f.txt', offset: 10, limit: 2 })).toBe(
      '    11\tline 11\n    12\tline 12\n\n[Showing lines 11-12 of 150. Continue with offset=12.]',
    );
  });

  it('counts `a\\nb\\n` as two lines and strips CRLF', async () => {
    put('two.txt', 'a\nb\n');
    put('crlf.txt', 'a\r\nb\r\n');
    expect(await ws.run('read_file', { file_path: '/two.txt' })).toBe('     1\ta\n     2\tb');
    expect(await ws.run('read_file', { file_path: '/crlf.txt' })).toBe('     1\ta\n     2\tb');
    expect(await ws.run('read_file', { file_path: '/two.txt', offset: 2 })).toBe('Error: Line offset 2 exceeds file length (2 lines)');
  });

  it('cuts lines over 5,000 characters into numbered rows', async () => {
    put('long.txt', 'x'.repeat(12_000) + '\nshort\n');
    const rows = (await ws.run('read_file', { file_path: '/long.txt' })).split('\n');
    expect(rows[0]).toBe(`     1\t${'x'.repeat(5000)}`);
    expect(rows[1]).toBe(`   1.1\t${'x'.repeat(5000)}`);
    expect(rows[2]).toBe(`   1.2\t${'x'.repeat(2000)}`);
    expect(rows[3]).toBe('     2\tshort');
  });

  it('caps output at 80,000 characters at a whole line, with the continue notice', async () => {
    put('wide.txt', Array.from({ length: 50 }, (_, i) => String(i + 1).padEnd(3000, '.')).join('\n'));
    const out = await ws.run('read_file', { file_path: '/wide.txt', limit: 50 });
    const notice = out.match(/\[Showing lines 1-(\d+) of 50\. Continue with offset=(\d+)\.\]$/);
    expect(notice).not.toBeNull();
    const shown = Number(notice![1]);
    expect(notice![2]).toBe(String(shown));
    expect(shown).toBeLessThan(50);
    expect(out.length - notice![0].length).toBeLessThanOrEqual(80_002);
    const next = await ws.run('read_file', { file_path: '/wide.txt', offset: shown, limit: 50 });
    expect(next.startsWith(`${String(shown + 1).padStart(6)}\t${String(shown + 1)}`)).toBe(true);
  });

  it('reports empty and whitespace-only files and missing ones', async () => {
    put('empty.txt', '');
    put('blank.txt', '  \n\n');
    expect(await ws.run('read_file', { file_path: '/empty.txt' })).toBe('System reminder: File exists but has empty contents');
    expect(await ws.run('read_file', { file_path: '/blank.txt' })).toBe('System reminder: File exists but has empty contents');
    expect(await ws.run('read_file', { file_path: '/nope.txt' })).toBe("Error: File '/nope.txt' not found");
    expect(await ws.run('read_file', { file_path: '/empty.txt', offset: 3 })).toBe('System reminder: File exists but has empty contents');
  });

  it('returns images as an image block', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    put('pic.png', png);
    const out = await ws.call('read_file', { file_path: '/pic.png' });
    expect(out.media?.mimeType).toBe('image/png');
    expect(Buffer.from(out.media!.data, 'base64').equals(png)).toBe(true);
    expect(out.text).not.toMatch(/^Error/);
  });

  it('accepts numeric strings and rejects bad arguments with an Error text', async () => {
    put('f.txt', 'a\nb\nc\n');
    expect(await ws.run('read_file', { file_path: '/f.txt', offset: '1', limit: '1' })).toContain('     2\tb');
    expect(await ws.run('read_file', { file_path: '/f.txt', offset: -1 })).toMatch(/^Error: invalid arguments for read_file: offset/);
    expect(await ws.run('read_file', {})).toMatch(/^Error: invalid arguments for read_file: file_path is required/);
    expect(await ws.run('read_file', { file_path: 42 })).toMatch(/^Error: /);
  });
});

describe('write_file and the read-before-write guard', () => {
  it('creates files with parents and says Updated file', async () => {
    expect(await ws.run('write_file', { file_path: '/new/deep/f.txt', content: 'hi\n' })).toBe('Updated file /new/deep/f.txt');
    expect(disk('new/deep/f.txt')).toBe('hi\n');
  });

  it('refuses to overwrite an unread file, allows it after a read, refuses after an outside change', async () => {
    put('f.txt', 'one\n');
    const refused = await ws.run('write_file', { file_path: '/f.txt', content: 'two\n' });
    expect(refused).toMatch(/^Error: .*read_file/);
    expect(disk('f.txt')).toBe('one\n');
    await ws.run('read_file', { file_path: '/f.txt' });
    expect(await ws.run('write_file', { file_path: '/f.txt', content: 'two\n' })).toBe('Updated file /f.txt');
    // Our own write counts as seen: a second write goes through.
    expect(await ws.run('write_file', { file_path: '/f.txt', content: 'three\n' })).toBe('Updated file /f.txt');
    put('f.txt', 'changed outside, longer\n');
    const stale = await ws.run('edit_file', { file_path: '/f.txt', old_string: 'changed', new_string: 'x' });
    expect(stale).toMatch(/^Error: .*changed since/);
    expect(disk('f.txt')).toBe('changed outside, longer\n');
  });

  it('keeps CRLF line endings and the file mode on overwrite', async () => {
    put('w.bat', 'echo a\r\necho b\r\n');
    chmodSync(join(ws.folder, 'w.bat'), 0o755);
    await ws.run('read_file', { file_path: '/w.bat' });
    await ws.run('write_file', { file_path: '/w.bat', content: 'echo c\necho d\n' });
    expect(disk('w.bat')).toBe('echo c\r\necho d\r\n');
    expect(statSync(join(ws.folder, 'w.bat')).mode & 0o777).toBe(0o755);
  });
});

describe('edit_file', () => {
  beforeEach(async () => {
    put('code.ts', 'const a = 1;\nconst b = 2;\nconst a2 = 1;\n');
    await ws.run('read_file', { file_path: '/code.ts' });
  });

  it('replaces one exact occurrence', async () => {
    expect(await ws.run('edit_file', { file_path: '/code.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' })).toBe(
      "Successfully replaced 1 instance(s) of the string in '/code.ts'",
    );
    expect(disk('code.ts')).toBe('const a = 1;\nconst b = 3;\nconst a2 = 1;\n');
  });

  it('refuses ambiguous matches unless replace_all', async () => {
    expect(await ws.run('edit_file', { file_path: '/code.ts', old_string: ' = 1;', new_string: ' = 9;' })).toBe(
      "Error: String ' = 1;' appears 2 times in file. Use replace_all=true to replace every instance, or add surrounding context to make it unique.",
    );
    expect(await ws.run('edit_file', { file_path: '/code.ts', old_string: ' = 1;', new_string: ' = 9;', replace_all: true })).toBe(
      "Successfully replaced 2 instance(s) of the string in '/code.ts'",
    );
    expect(disk('code.ts')).toBe('const a = 9;\nconst b = 2;\nconst a2 = 9;\n');
  });

  it('reports a missing string with hints', async () => {
    expect(await ws.run('edit_file', { file_path: '/code.ts', old_string: 'nothing', new_string: 'x' })).toBe(
      "Error: String not found in file: 'nothing'",
    );
    const gutter = await ws.run('edit_file', { file_path: '/code.ts', old_string: '     2\tconst b = 2;', new_string: 'x' });
    expect(gutter).toMatch(/^Error: String not found in file: ' {5}2\tconst b = 2;'\nHint: .*line-number/);
    const trailing = await ws.run('edit_file', { file_path: '/code.ts', old_string: 'const b = 2;   \nconst a2', new_string: 'x' });
    expect(trailing).toMatch(/Hint: .*trailing whitespace/);
    put('nonl.txt', 'last line');
    await ws.run('read_file', { file_path: '/nonl.txt' });
    expect(await ws.run('edit_file', { file_path: '/nonl.txt', old_string: 'last line\n', new_string: 'x' })).toMatch(/Hint: .*newline/);
  });

  it('treats regex characters literally and keeps CRLF files CRLF', async () => {
    put('crlf.txt', 'a.*b\r\nsecond\r\n');
    await ws.run('read_file', { file_path: '/crlf.txt' });
    expect(await ws.run('edit_file', { file_path: '/crlf.txt', old_string: 'a.*b\nsecond', new_string: 'x\ny' })).toBe(
      "Successfully replaced 1 instance(s) of the string in '/crlf.txt'",
    );
    expect(disk('crlf.txt')).toBe('x\r\ny\r\n');
  });

  it('handles empty old_string: error on a non-empty file, sets content of an empty one', async () => {
    expect(await ws.run('edit_file', { file_path: '/code.ts', old_string: '', new_string: 'x' })).toMatch(/^Error: /);
    put('empty.txt', '');
    await ws.run('read_file', { file_path: '/empty.txt' });
    expect(await ws.run('edit_file', { file_path: '/empty.txt', old_string: '', new_string: 'filled\n' })).toMatch(/^Successfully replaced 1/);
    expect(disk('empty.txt')).toBe('filled\n');
  });

  it('applies parallel edits of one file one after the other, losing none', async () => {
    put('many.txt', Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n') + '\n');
    await ws.run('read_file', { file_path: '/many.txt' });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => ws.run('edit_file', { file_path: '/many.txt', old_string: `line ${i}\n`, new_string: `LINE ${i}\n` })),
    );
    expect(results.every((r) => r.startsWith('Successfully replaced 1'))).toBe(true);
    expect(disk('many.txt')).toBe(Array.from({ length: 20 }, (_, i) => `LINE ${i}`).join('\n') + '\n');
  });

  it('errors on a missing file', async () => {
    expect(await ws.run('edit_file', { file_path: '/none.ts', old_string: 'a', new_string: 'b' })).toBe("Error: File '/none.ts' not found");
  });
});

describe('glob', () => {
  beforeEach(() => {
    put('a.py', 'a');
    put('sub/b.py', 'b');
    put('.hidden.py', 'h');
    put('.hidden/x.py', 'x');
  });

  it('follows the SPEC examples exactly', async () => {
    expect(await ws.run('glob', { pattern: '*.py' })).toBe('/.hidden/x.py\n/a.py\n/sub/b.py');
    expect(await ws.run('glob', { pattern: '**/*.py' })).toBe('/a.py\n/sub/b.py');
    expect(await ws.run('glob', { pattern: '/*.py' })).toBe('/a.py');
    expect(await ws.run('glob', { pattern: '.*.py' })).toBe('/.hidden.py');
    expect(await ws.run('glob', { pattern: '*.rs' })).toBe('No files found');
    expect(await ws.run('glob', { pattern: '*.py', path: '/sub' })).toBe('/sub/b.py');
  });

  it('skips .git and gitignored files', async () => {
    put('.git/config.py', 'x');
    put('.gitignore', 'ignored/\n');
    put('ignored/c.py', 'c');
    expect(await ws.run('glob', { pattern: '*.py' })).toBe('/.hidden/x.py\n/a.py\n/sub/b.py');
  });
});

describe('grep', () => {
  beforeEach(() => {
    put('a.ts', 'alpha\nfoo(bar)\nomega foo(bar)\n');
    put('sub/b.ts', 'nothing\nfoo(bar) here\n');
    put('c.md', 'foo(bar)\n');
  });

  it('lists files by default, sorted', async () => {
    expect(await ws.run('grep', { pattern: 'foo(bar)' })).toBe('/a.ts\n/c.md\n/sub/b.ts');
  });

  it('shows content and count modes', async () => {
    expect(await ws.run('grep', { pattern: 'foo(bar)', output_mode: 'content', glob: '*.ts' })).toBe(
      '/a.ts:\n  2: foo(bar)\n  3: omega foo(bar)\n/sub/b.ts:\n  2: foo(bar) here',
    );
    expect(await ws.run('grep', { pattern: 'foo(bar)', output_mode: 'count' })).toBe('/a.ts: 2\n/c.md: 1\n/sub/b.ts: 1');
  });

  it('is literal and case-sensitive, and explains regex-looking patterns', async () => {
    expect(await ws.run('grep', { pattern: 'FOO' })).toBe('No matches found');
    const regexy = await ws.run('grep', { pattern: 'foo.*bar' });
    expect(regexy.split('\n')[0]).toBe('No matches found');
    expect(regexy.split('\n')).toHaveLength(2);
    expect(regexy).toMatch(/literal/);
  });

  it('truncates at max_count and says how to narrow', async () => {
    const out = await ws.run('grep', { pattern: 'foo', output_mode: 'content', max_count: 2 });
    const lines = out.split('\n');
    expect(lines.slice(0, 3)).toEqual(['/a.ts:', '  2: foo(bar)', '  3: omega foo(bar)']);
    expect(lines[lines.length - 1]).toMatch(/truncated/i);
  });

  it('searches a single file and /memories/', async () => {
    expect(await ws.run('grep', { pattern: 'omega', path: '/a.ts', output_mode: 'content' })).toBe('/a.ts:\n  3: omega foo(bar)');
    await ws.run('write_file', { file_path: '/memories/notes.md', content: 'remember foo(bar)\n' });
    expect(await ws.run('grep', { pattern: 'remember' })).toBe('/memories/notes.md');
  });
});

describe('execute', () => {
  it('reports success and failure with the exact status lines', async () => {
    expect(await ws.run('execute', { command: 'echo hello' })).toBe('hello\n[Command succeeded with exit code 0]');
    expect(await ws.run('execute', { command: 'echo oops >&2; exit 3' })).toBe('oops\n[Command failed with exit code 3]');
  });

  it('runs in the project folder', async () => {
    put('marker.txt', 'x');
    expect(await ws.run('execute', { command: 'ls' })).toContain('marker.txt');
  });

  it('validates the timeout', async () => {
    expect(await ws.run('execute', { command: 'true', timeout: 3601 })).toMatch(/^Error: .*3600/);
    expect(await ws.run('execute', { command: 'true', timeout: -1 })).toMatch(/^Error: /);
  });

  it('times out with exit code 124', async () => {
    const out = await ws.run('execute', { command: 'sleep 30', timeout: 1 });
    expect(out).toMatch(/timed out/i);
    expect(out.endsWith('[Command failed with exit code 124]')).toBe(true);
  });
});

describe('unknown tools and bad input', () => {
  it('names the unknown tool', async () => {
    expect(await ws.run('nope', {})).toBe("Error: unknown tool 'nope'");
  });
});

describe('the counted facts of a read, grep, glob or ls (the window reads these, never the text)', () => {
  const gist = async (tool: string, args: Record<string, unknown>) => (await ws.call(tool, args)).gist;

  it('counts what came back, beside the unchanged text', async () => {
    put('a.ts', 'alpha\nfoo(bar)\nomega foo(bar)\n');
    put('sub/b.ts', 'nothing\nfoo(bar) here\n');
    put('long.txt', Array.from({ length: 250 }, (_, i) => `l${i}`).join('\n'));
    put('empty.txt', '  \n');
    expect(await gist('grep', { pattern: 'foo(bar)', output_mode: 'content' })).toEqual({ kind: 'grep', matches: 3, files: 2, truncated: false });
    expect(await gist('grep', { pattern: 'foo', max_count: 2 })).toEqual({ kind: 'grep', matches: 2, files: 1, truncated: true });
    expect(await gist('grep', { pattern: 'zzz' })).toEqual({ kind: 'grep', matches: 0, files: 0, truncated: false });
    expect(await gist('glob', { pattern: '*.ts' })).toEqual({ kind: 'glob', files: 2, truncated: false });
    expect(await gist('glob', { pattern: '*.zz' })).toEqual({ kind: 'glob', files: 0, truncated: false });
    expect(await gist('ls', { path: '/sub' })).toEqual({ kind: 'ls', entries: 1 });
    mkdirSync(join(ws.folder, 'none'));
    expect(await gist('ls', { path: '/none' })).toEqual({ kind: 'ls', entries: 0 });
    expect(await gist('read_file', { file_path: '/a.ts' })).toEqual({ kind: 'read', from: 1, to: 3, total: 3 });
    expect(await gist('read_file', { file_path: '/long.txt', offset: 100 })).toEqual({ kind: 'read', from: 101, to: 200, total: 250 });
    expect(await gist('read_file', { file_path: '/empty.txt' })).toEqual({ kind: 'read-empty' });
    // A failure is said by its text (SPEC §3), with no count.
    expect(await gist('read_file', { file_path: '/missing' })).toBeUndefined();
  });
});
