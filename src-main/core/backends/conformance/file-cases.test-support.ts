// Conformance cases for write, read, readRaw, ls, edit, delete and stat (SPEC §2, §3).

import { describe, expect, it } from 'vitest';
import { messages } from '../messages';
import { compareCodePoints } from '../paths';
import type { SuiteContext } from './context.test-support';
import { expectIsoTimestamp, hex, utf8Bytes } from './context.test-support';

export function fileCases(ctx: SuiteContext): void {
  const { v } = ctx;
  const b = () => ctx.backend();

  describe('write', () => {
    it('write then read returns the same text', async () => {
      const res = await b().write(v('notes.md'), 'héllo 😀\nsecond line\n');
      expect(res).toEqual({ path: v('notes.md') });
      const read = await b().read(v('notes.md'));
      expect(read.error).toBeUndefined();
      expect(read.fileData?.content).toBe('héllo 😀\nsecond line');
      expect(read.fileData?.encoding).toBe('utf-8');
      expect(hex((await b().readRaw(v('notes.md'))).data)).toBe(hex(utf8Bytes('héllo 😀\nsecond line\n')));
    });

    it('creates missing parent folders', async () => {
      expect((await b().write(v('a/b/c.txt'), 'deep')).error).toBeUndefined();
      expect(await ctx.lsPaths(v('a'))).toEqual([v('a/b/')]);
      expect(await ctx.lsPaths(v('a/b'))).toEqual([v('a/b/c.txt')]);
      expect(await ctx.raw('a/b/c.txt')).toBe('deep');
    });

    it('overwrites an existing file', async () => {
      await ctx.seed({ 'f.txt': 'old content that is longer\n' });
      expect(await b().write(v('f.txt'), 'new\n')).toEqual({ path: v('f.txt') });
      expect(await ctx.raw('f.txt')).toBe('new\n');
    });

    it('stores a new file exactly as given (CRLF and LF alike)', async () => {
      await ctx.seed({ 'crlf.txt': 'a\r\nb\r\n', 'lf.txt': 'a\nb\n', 'empty.txt': '' });
      expect(await ctx.raw('crlf.txt')).toBe('a\r\nb\r\n');
      expect(await ctx.raw('lf.txt')).toBe('a\nb\n');
      expect(await ctx.raw('empty.txt')).toBe('');
    });

    it('keeps the CRLF line endings of an existing CRLF file', async () => {
      await ctx.seed({ 'win.txt': 'one\r\ntwo\r\n' });
      expect((await b().write(v('win.txt'), 'uno\ndos\ntres\n')).error).toBeUndefined();
      expect(await ctx.raw('win.txt')).toBe('uno\r\ndos\r\ntres\r\n');
    });

    it('keeps the UTF-8 BOM of an existing file', async () => {
      await ctx.seed({ 'bom.txt': '\uFEFFfirst\n' });
      expect((await b().write(v('bom.txt'), 'second\n')).error).toBeUndefined();
      expect(await ctx.raw('bom.txt')).toBe('\uFEFFsecond\n');
    });

    it('refuses to write over a folder', async () => {
      await ctx.seed({ 'dir/inner.txt': 'x' });
      expect((await b().write(v('dir'), 'clobber')).error).toBeTruthy();
      expect(await ctx.raw('dir/inner.txt')).toBe('x');
    });

    it('refuses to write below a file', async () => {
      await ctx.seed({ 'file.txt': 'x' });
      expect((await b().write(v('file.txt/child.txt'), 'y')).error).toBeTruthy();
      expect(await ctx.raw('file.txt')).toBe('x');
    });
  });

  describe('read', () => {
    const fiveLines = 'l1\nl2\nl3\nl4\nl5\n';

    it('reads the whole file by default with its line counts', async () => {
      await ctx.seed({ 'f.txt': fiveLines });
      const res = await b().read(v('f.txt'));
      expect(res).toMatchObject({ startLine: 1, endLine: 5, totalLines: 5 });
      expect(res.fileData?.content).toBe('l1\nl2\nl3\nl4\nl5');
      expect(res.nextOffset).toBeUndefined();
    });

    it('returns a window for offset/limit with nextOffset when lines remain', async () => {
      await ctx.seed({ 'f.txt': fiveLines });
      const res = await b().read(v('f.txt'), 1, 2);
      expect(res.error).toBeUndefined();
      expect(res.fileData?.content).toBe('l2\nl3');
      expect(res).toMatchObject({ startLine: 2, endLine: 3, totalLines: 5, nextOffset: 3 });
    });

    it('has no nextOffset when the window reaches the end', async () => {
      await ctx.seed({ 'f.txt': fiveLines });
      const res = await b().read(v('f.txt'), 3, 10);
      expect(res.fileData?.content).toBe('l4\nl5');
      expect(res).toMatchObject({ startLine: 4, endLine: 5, totalLines: 5 });
      expect(res.nextOffset).toBeUndefined();
      const exact = await b().read(v('f.txt'), 3, 2);
      expect(exact).toMatchObject({ startLine: 4, endLine: 5, totalLines: 5 });
      expect(exact.nextOffset).toBeUndefined();
    });

    it('reads 2000 lines by default', async () => {
      await ctx.seed({ 'long.txt': Array.from({ length: 2001 }, (_, i) => `line ${i + 1}`).join('\n') + '\n' });
      const res = await b().read(v('long.txt'));
      expect(res).toMatchObject({ startLine: 1, endLine: 2000, totalLines: 2001, nextOffset: 2000 });
      expect(res.fileData?.content.split('\n')).toHaveLength(2000);
      const rest = await b().read(v('long.txt'), 2000);
      expect(rest.fileData?.content).toBe('line 2001');
      expect(rest).toMatchObject({ startLine: 2001, endLine: 2001, totalLines: 2001 });
    });

    it('counts `a\\nb\\n` as 2 lines', async () => {
      await ctx.seed({ 'f.txt': 'a\nb\n' });
      const res = await b().read(v('f.txt'));
      expect(res.fileData?.content).toBe('a\nb');
      expect(res).toMatchObject({ startLine: 1, endLine: 2, totalLines: 2 });
    });

    it('reads a file without a trailing newline', async () => {
      await ctx.seed({ 'f.txt': 'a\nb' });
      const res = await b().read(v('f.txt'));
      expect(res.fileData?.content).toBe('a\nb');
      expect(res.totalLines).toBe(2);
    });

    it('returns CRLF lines without \\r', async () => {
      await ctx.seed({ 'f.txt': 'a\r\nb\r\nc\r\n' });
      const res = await b().read(v('f.txt'), 1, 1);
      expect(res.fileData?.content).toBe('b');
      expect(res).toMatchObject({ startLine: 2, endLine: 2, totalLines: 3, nextOffset: 2 });
      expect((await b().read(v('f.txt'))).fileData?.content).toBe('a\nb\nc');
    });

    it('reads an empty file as empty content with 0 lines', async () => {
      await ctx.seed({ 'empty.txt': '' });
      const res = await b().read(v('empty.txt'));
      expect(res.error).toBeUndefined();
      expect(res.fileData?.content).toBe('');
      expect(res.fileData?.encoding).toBe('utf-8');
      expect(res.totalLines).toBe(0);
    });

    it('refuses an offset at or past the end with the exact message', async () => {
      await ctx.seed({ 'f.txt': 'a\nb\n' });
      expect((await b().read(v('f.txt'), 2)).error).toBe(messages.offsetPastEnd(2, 2));
      expect((await b().read(v('f.txt'), 7, 3)).error).toBe(messages.offsetPastEnd(7, 2));
    });

    it('reports a missing file with the exact message', async () => {
      expect((await b().read(v('nope.txt'))).error).toBe(messages.fileNotFound(v('nope.txt')));
      expect((await b().read(v('no/such/dir.txt'))).error).toBe(messages.fileNotFound(v('no/such/dir.txt')));
    });

    it('never returns a window before line 1 for a negative offset', async () => {
      await ctx.seed({ 'f.txt': 'a\nb\nc\n' });
      const res = await b().read(v('f.txt'), -1, 2);
      // Either refused or read from the start; never line 0 or lines from the end.
      if (res.error === undefined) {
        expect(res.fileData?.content).toBe('a\nb');
        expect(res).toMatchObject({ startLine: 1, endLine: 2, totalLines: 3, nextOffset: 2 });
      }
    });

    it('reports a path below a file as not found', async () => {
      await ctx.seed({ 'f.txt': 'x' });
      expect((await b().read(v('f.txt/x'))).error).toBe(messages.fileNotFound(v('f.txt/x')));
      expect((await b().ls(v('f.txt/x'))).error).toBe(messages.pathNotFound(v('f.txt/x')));
      expect((await b().downloadFiles([v('f.txt/x')]))[0]?.error).toBe('file_not_found');
    });

    it('refuses to read a folder', async () => {
      await ctx.seed({ 'dir/f.txt': 'x' });
      const res = await b().read(v('dir'));
      expect(res.error).toBe(messages.isDirectory(v('dir')));
      expect(res.fileData).toBeUndefined();
    });
  });

  describe('readRaw', () => {
    it('returns the exact UTF-8 bytes of a text file', async () => {
      await ctx.seed({ 'f.txt': 'héllo\r\n😀' });
      const res = await b().readRaw(v('f.txt'));
      expect(res.error).toBeUndefined();
      expect(hex(res.data)).toBe(hex(utf8Bytes('héllo\r\n😀')));
    });

    it('refuses a folder', async () => {
      await ctx.seed({ 'dir/f.txt': 'x' });
      const res = await b().readRaw(v('dir'));
      expect(res.error).toBe(messages.isDirectory(v('dir')));
      expect(res.data).toBeUndefined();
    });

    it('reports a missing file', async () => {
      const res = await b().readRaw(v('nope.bin'));
      expect(res.error).toBeTruthy();
      expect(res.data).toBeUndefined();
    });
  });

  describe('ls', () => {
    it('lists immediate children, folders with a trailing / and isDir', async () => {
      await ctx.seed({ 'a.txt': 'x', 'sub/b.txt': 'y', 'sub/deeper/c.txt': 'z' });
      expect(await ctx.lsPaths(v(''))).toEqual(ctx.rootListing([v('a.txt'), v('sub/')]));
      expect(await ctx.lsPaths(v('sub'))).toEqual([v('sub/b.txt'), v('sub/deeper/')]);
    });

    it('sorts by code point: case, unicode and astral names', async () => {
      const names = ['a.txt', 'B.txt', 'Z', '_u.txt', 'é.txt', '😀.txt', '\uFF5A.txt', 'sub.txt', '0.txt'];
      const files: Record<string, string> = {};
      for (const n of names) files[`list/${n}`] = n;
      files['list/sub/inner.txt'] = 'dir';
      await ctx.seed(files);
      const paths = await ctx.lsPaths(v('list'));
      const expected = [...names.map((n) => v(`list/${n}`)), v('list/sub/')].sort(compareCodePoints);
      expect(paths).toEqual(expected);
      // Spot checks that do not depend on the helper: astral after U+FF5A, upper before lower.
      expect(paths.indexOf(v('list/\uFF5A.txt'))).toBeLessThan(paths.indexOf(v('list/😀.txt')));
      expect(paths.indexOf(v('list/B.txt'))).toBeLessThan(paths.indexOf(v('list/a.txt')));
    });

    it('gives files their size in bytes and an ISO modifiedAt', async () => {
      await ctx.seed({ 'f.txt': 'héllo\n', 'empty.txt': '' });
      const res = await b().ls(v(''));
      const byPath = new Map((res.entries ?? []).map((e) => [e.path, e]));
      expect(byPath.get(v('f.txt'))?.size).toBe(7);
      expect(byPath.get(v('empty.txt'))?.size).toBe(0);
      expect(byPath.get(v('f.txt'))?.isDir).toBeFalsy();
      expectIsoTimestamp(byPath.get(v('f.txt')) ?? { path: v('f.txt') });
    });

    it('reports a missing path with the exact message', async () => {
      expect((await b().ls(v('nope'))).error).toBe(messages.pathNotFound(v('nope')));
    });

    it('lists a file as that single file entry', async () => {
      await ctx.seed({ 'f.txt': 'abc', 'g.txt': 'x' });
      const res = await b().ls(v('f.txt'));
      expect(res.error).toBeUndefined();
      expect(res.entries).toHaveLength(1);
      expect(res.entries?.[0]).toMatchObject({ path: v('f.txt'), size: 3 });
      expect(res.entries?.[0]?.isDir).toBeFalsy();
    });

    it('lists an empty root as no entries', async () => {
      expect(await ctx.lsPaths(v(''))).toEqual(ctx.rootListing([]));
    });
  });

  describe('edit', () => {
    it('replaces a single occurrence', async () => {
      await ctx.seed({ 'f.txt': 'hello world\n' });
      expect(await b().edit(v('f.txt'), 'world', 'there')).toEqual({ path: v('f.txt'), occurrences: 1 });
      expect(await ctx.raw('f.txt')).toBe('hello there\n');
    });

    it('reports text that is not found with the exact message and changes nothing', async () => {
      await ctx.seed({ 'f.txt': 'hello world\n' });
      expect((await b().edit(v('f.txt'), 'nope', 'x')).error).toBe(messages.stringNotFound('nope'));
      expect(await ctx.raw('f.txt')).toBe('hello world\n');
    });

    it('refuses ambiguous text with the exact message and changes nothing', async () => {
      await ctx.seed({ 'f.txt': 'a-a-a' });
      expect((await b().edit(v('f.txt'), 'a', 'b')).error).toBe(messages.ambiguousString('a', 3));
      expect(await ctx.raw('f.txt')).toBe('a-a-a');
    });

    it('replaces every occurrence with replaceAll and counts them', async () => {
      await ctx.seed({ 'f.txt': 'a-a-a' });
      expect(await b().edit(v('f.txt'), 'a', 'bb', true)).toEqual({ path: v('f.txt'), occurrences: 3 });
      expect(await ctx.raw('f.txt')).toBe('bb-bb-bb');
    });

    it('treats old_string literally (regex metacharacters)', async () => {
      await ctx.seed({ 'f.txt': 'x = a.c + (y) * [z] $1\n' });
      expect((await b().edit(v('f.txt'), 'a.c + (y) * [z] $1', '$& $$')).error).toBeUndefined();
      expect(await ctx.raw('f.txt')).toBe('x = $& $$\n');
    });

    it('refuses an empty old_string on a non-empty file', async () => {
      await ctx.seed({ 'f.txt': 'content\n' });
      expect((await b().edit(v('f.txt'), '', 'x')).error).toBe(messages.emptyOldString);
      expect(await ctx.raw('f.txt')).toBe('content\n');
    });

    it('sets the content of an empty file with an empty old_string', async () => {
      await ctx.seed({ 'empty.txt': '' });
      expect((await b().edit(v('empty.txt'), '', 'now filled\n')).error).toBeUndefined();
      expect(await ctx.raw('empty.txt')).toBe('now filled\n');
    });

    it('keeps a CRLF file CRLF when edited with \\n strings', async () => {
      await ctx.seed({ 'win.txt': 'one\r\ntwo\r\nthree\r\n' });
      const res = await b().edit(v('win.txt'), 'one\ntwo', 'uno\ndos\nzwei');
      expect(res).toEqual({ path: v('win.txt'), occurrences: 1 });
      expect(await ctx.raw('win.txt')).toBe('uno\r\ndos\r\nzwei\r\nthree\r\n');
    });

    it('hints at a trailing-whitespace mismatch', async () => {
      await ctx.seed({ 'f.txt': 'foo  \nbar\n' });
      const error = (await b().edit(v('f.txt'), 'foo\nbar', 'baz')).error ?? '';
      expect(error.startsWith(messages.stringNotFound('foo\nbar'))).toBe(true);
      expect(error).toContain('trailing whitespace');
    });

    it('reports a missing file with the exact message', async () => {
      expect((await b().edit(v('nope.txt'), 'a', 'b')).error).toBe(messages.fileNotFound(v('nope.txt')));
    });

    it('refuses to edit a folder', async () => {
      await ctx.seed({ 'dir/f.txt': 'x' });
      expect((await b().edit(v('dir'), 'x', 'y')).error).toBe(messages.isDirectory(v('dir')));
      expect(await ctx.raw('dir/f.txt')).toBe('x');
    });

    it('refuses to edit a binary file', async () => {
      const bytes = Uint8Array.from([0x61, 0x00, 0x62, 0x0a]);
      await ctx.seedBytes('blob.dat', bytes);
      expect((await b().edit(v('blob.dat'), 'a', 'c')).error).toBe(messages.binaryEdit(v('blob.dat')));
      expect(hex((await b().readRaw(v('blob.dat'))).data)).toBe(hex(bytes));
    });

    it('refuses to edit a file that is not valid UTF-8', async () => {
      const bytes = Uint8Array.from([0x41, 0xff, 0xfe, 0x42, 0x0a]);
      await ctx.seedBytes('latin1.txt', bytes);
      // SPEC fixes no text here; in-memory backends store such bytes as binary and say so.
      const error = (await b().edit(v('latin1.txt'), 'A', 'C')).error;
      expect([messages.notUtf8(v('latin1.txt')), messages.binaryEdit(v('latin1.txt'))]).toContain(error);
      expect(hex((await b().readRaw(v('latin1.txt'))).data)).toBe(hex(bytes));
    });
  });

  describe('delete', () => {
    it('deletes a file; reading it then reports not found', async () => {
      await ctx.seed({ 'f.txt': 'x', 'g.txt': 'y' });
      expect(await b().delete(v('f.txt'))).toEqual({ path: v('f.txt') });
      expect((await b().read(v('f.txt'))).error).toBe(messages.fileNotFound(v('f.txt')));
      expect(await ctx.lsPaths(v(''))).toEqual(ctx.rootListing([v('g.txt')]));
    });

    it('reports a missing file', async () => {
      expect((await b().delete(v('nope.txt'))).error).toBeTruthy();
    });

    it('refuses a non-empty folder and keeps its files', async () => {
      await ctx.seed({ 'dir/f.txt': 'x' });
      expect((await b().delete(v('dir'))).error).toBeTruthy();
      expect(await ctx.raw('dir/f.txt')).toBe('x');
    });
  });

  describe('stat', () => {
    it('describes a file with a version', async () => {
      await ctx.seed({ 'f.txt': 'abc' });
      const res = await b().stat(v('f.txt'));
      expect(res.error).toBeUndefined();
      expect(res.info).toMatchObject({ path: v('f.txt'), size: 3 });
      expectIsoTimestamp(res.info ?? { path: v('f.txt') });
      expect(typeof res.version).toBe('string');
      expect(res.version).not.toBe('');
    });

    it('changes version after write and edit, keeps it after read', async () => {
      await ctx.seed({ 'f.txt': 'abc\n' });
      const v1 = (await b().stat(v('f.txt'))).version;
      await b().read(v('f.txt'));
      await b().readRaw(v('f.txt'));
      expect((await b().stat(v('f.txt'))).version).toBe(v1);
      expect((await b().write(v('f.txt'), 'xyz\n')).error).toBeUndefined();
      const v2 = (await b().stat(v('f.txt'))).version;
      expect(v2).not.toBe(v1);
      expect((await b().edit(v('f.txt'), 'xyz', 'uvw')).error).toBeUndefined();
      const v3 = (await b().stat(v('f.txt'))).version;
      expect(v3).not.toBe(v2);
    });

    it('reports a missing file', async () => {
      const res = await b().stat(v('nope.txt'));
      expect(res.error).toBeTruthy();
      expect(res.version).toBeUndefined();
    });
  });
}
