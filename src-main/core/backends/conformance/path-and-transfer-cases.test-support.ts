// Conformance cases for uploads/downloads, binary reads, refused paths and path
// normalisation (SPEC §1, §2).

import { describe, expect, it } from 'vitest';
import type { Backend } from '../protocol';
import type { SuiteContext } from './context.test-support';
import { ALL_BYTES, hex, pathsOf, PNG_BYTES, utf8Bytes } from './context.test-support';

export function pathAndTransferCases(ctx: SuiteContext): void {
  const { v } = ctx;
  const b = () => ctx.backend();

  describe('uploadFiles / downloadFiles', () => {
    it('round-trips every byte value 0..255', async () => {
      const up = await b().uploadFiles([{ path: v('bin/all.bin'), content: ALL_BYTES }]);
      expect(up).toEqual([{ path: v('bin/all.bin') }]);
      const down = await b().downloadFiles([v('bin/all.bin')]);
      expect(down).toHaveLength(1);
      expect(down[0]?.error).toBeUndefined();
      expect(down[0]?.path).toBe(v('bin/all.bin'));
      expect(hex(down[0]?.content)).toBe(hex(ALL_BYTES));
      expect(hex((await b().readRaw(v('bin/all.bin'))).data)).toBe(hex(ALL_BYTES));
    });

    it('uploads exact bytes over an existing CRLF file (no line-ending conversion)', async () => {
      await ctx.seed({ 'win.txt': 'a\r\nb\r\n' });
      const [res] = await b().uploadFiles([{ path: v('win.txt'), content: utf8Bytes('x\ny\n') }]);
      expect(res?.error).toBeUndefined();
      expect(await ctx.raw('win.txt')).toBe('x\ny\n');
    });

    it('downloads text written with write()', async () => {
      await ctx.seed({ 'f.txt': 'héllo\n' });
      const [res] = await b().downloadFiles([v('f.txt')]);
      expect(hex(res?.content)).toBe(hex(utf8Bytes('héllo\n')));
    });

    it('gives per-item errors in order: file_not_found, is_directory, invalid_path', async () => {
      await ctx.seed({ 'ok.txt': 'ok', 'dir/inner.txt': 'x' });
      const res = await b().downloadFiles([v('ok.txt'), v('missing.txt'), v('dir'), '../x', v('ok.txt')]);
      expect(res.map((r) => r.error)).toEqual([undefined, 'file_not_found', 'is_directory', 'invalid_path', undefined]);
      expect(res[0]?.path).toBe(v('ok.txt'));
      expect(res[1]?.content).toBeUndefined();
      expect(hex(res[4]?.content)).toBe(hex(utf8Bytes('ok')));
    });

    it('marks each invalid path invalid_path and still writes the valid items', async () => {
      const bad = ['../x', '~/x', 'C:\\x', 'a\0b'];
      const up = await b().uploadFiles([...bad, 'good.bin'].map((p) => ({ path: p === 'good.bin' ? v(p) : p, content: utf8Bytes('data') })));
      expect(up.map((r) => r.error)).toEqual(['invalid_path', 'invalid_path', 'invalid_path', 'invalid_path', undefined]);
      const down = await b().downloadFiles(bad);
      expect(down.map((r) => r.error)).toEqual(['invalid_path', 'invalid_path', 'invalid_path', 'invalid_path']);
      expect(await ctx.lsPaths(v(''))).toEqual(ctx.rootListing([v('good.bin')]));
    });
  });

  describe('binary read', () => {
    it('reads an uploaded PNG as base64 with image/png', async () => {
      await ctx.seedBytes('x.png', PNG_BYTES);
      const res = await b().read(v('x.png'));
      expect(res.error).toBeUndefined();
      expect(res.fileData?.encoding).toBe('base64');
      expect(res.fileData?.mimeType).toBe('image/png');
      expect(hex(Buffer.from(res.fileData?.content ?? '', 'base64'))).toBe(hex(PNG_BYTES));
    });

    it('reads a file with NUL bytes and no media extension as base64', async () => {
      await ctx.seedBytes('blob.dat', ALL_BYTES);
      const res = await b().read(v('blob.dat'));
      expect(res.error).toBeUndefined();
      expect(res.fileData?.encoding).toBe('base64');
      expect(hex(Buffer.from(res.fileData?.content ?? '', 'base64'))).toBe(hex(ALL_BYTES));
    });
  });

  describe('refused paths', () => {
    const BAD = (root: string) => ['../x', `${root}/sub/../../x`, '/..', '~/x', '~', 'C:\\x', 'D:/x', 'a\0b', `${root}/a\0b`];

    const calls: [string, (be: Backend, p: string) => Promise<{ error?: string }>][] = [
      ['ls', (be, p) => be.ls(p)],
      ['read', (be, p) => be.read(p)],
      ['readRaw', (be, p) => be.readRaw(p)],
      ['write', (be, p) => be.write(p, 'written')],
      ['edit', (be, p) => be.edit(p, 'keep', 'changed')],
      ['delete', (be, p) => be.delete(p)],
      ['grep', (be, p) => be.grep('keep', p)],
      ['glob', (be, p) => be.glob('*', p)],
      ['stat', (be, p) => be.stat(p)],
    ];

    for (const [method, call] of calls) {
      it(`${method} returns an error for '..', '~', drive and NUL paths and touches nothing`, async () => {
        await ctx.seed({ 'keep.txt': 'keep\n', 'sub/keep.txt': 'keep\n' });
        for (const bad of BAD(ctx.rootPath === '/' ? '' : ctx.rootPath)) {
          const res = await call(b(), bad);
          expect(res.error, `${method}(${JSON.stringify(bad)})`).toEqual(expect.any(String));
          expect(res.error).not.toBe('');
        }
        expect(await ctx.lsPaths(v(''))).toEqual(ctx.rootListing([v('keep.txt'), v('sub/')]));
        expect(await ctx.lsPaths(v('sub'))).toEqual([v('sub/keep.txt')]);
        expect(await ctx.raw('keep.txt')).toBe('keep\n');
        expect(await ctx.raw('sub/keep.txt')).toBe('keep\n');
      });
    }
  });

  describe('path normalisation', () => {
    it('a//b, /./a, backslashes, a missing leading / and a trailing / reach the same file', async () => {
      const target = v('dir/f.txt');
      const variants = [
        target.replaceAll('/', '//'),
        target.replaceAll('/', '/./'),
        target.replaceAll('/', '\\'),
        target.slice(1),
        target + '/',
      ];
      await ctx.seed({ 'dir/f.txt': 'one\n' });
      for (const variant of variants) {
        const read = await b().read(variant);
        expect(read.fileData?.content, `read ${JSON.stringify(variant)}`).toBe('one');
        expect((await b().stat(variant)).info?.path, `stat ${JSON.stringify(variant)}`).toBe(target);
      }
      for (const [i, variant] of variants.entries()) {
        expect(await b().write(variant, `v${i}\n`), `write ${JSON.stringify(variant)}`).toEqual({ path: target });
        expect(await ctx.raw('dir/f.txt')).toBe(`v${i}\n`);
        expect(await b().edit(variant, `v${i}`, `e${i}`), `edit ${JSON.stringify(variant)}`).toEqual({ path: target, occurrences: 1 });
      }
      expect(await ctx.lsPaths(v('dir'))).toEqual([target]);
      expect(await ctx.lsPaths(v('dir').slice(1) + '//')).toEqual([target]);
      expect(pathsOf((await b().grep('e4', v('dir').replaceAll('/', '\\'))).matches)).toEqual([target]);
      expect(pathsOf((await b().glob('*.txt', '.' + v('dir'))).matches)).toEqual([target]);
      const [down] = await b().downloadFiles([variants[0] ?? '']);
      expect(down?.error).toBeUndefined();
      expect(await b().delete(variants[2] ?? '')).toEqual({ path: target });
      expect((await b().read(target)).error).toBeTruthy();
    });
  });
}
