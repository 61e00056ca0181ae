// The sandbox standard tests of Deep Agents (JS), for a ShellBackend of ours.
//
// Source: github.com/langchain-ai/deepagentsjs, libs/standard-tests/src/tests/
//   file-operations.ts @ 96bb75d6d17274b990b65991e403cd23e4d800e6
//   write.ts           @ eff91964a067bf8c824bcdf645ba0fb41c692506
//   read.ts, edit.ts, grep-raw.ts @ 6c1d44700ed1aaacaaee46c3c386db2cc597c87d
//   command-execution.ts @ 9a57e9b0d00dc770433a6a5b8479772f949d2c59
// The cases and their expectations, rewritten here against our protocol (SPEC §2) rather
// than copied. Adapted, and only where the protocols differ:
// - paths are virtual (the workdir is `/`); a shell command names a file relative to the
//   workdir it runs in (`./name`);
// - results carry `error: undefined` where Deep Agents has `null`; read() gives the window's
//   text in `fileData.content` (the numbered lines are the tool's, SPEC §3) and an offset
//   past the end is an error, not empty content;
// - edit()'s ambiguity message says "appears N times" where Deep Agents says "multiple":
//   the message is SPEC §3's, so the case checks the count instead;
// - grepRaw is grep().
// Left out: lifecycle.ts and initial-files.ts (a provider's create/close, tested with each
// provider's stand-in), integration.ts (an agent end to end), ls-info.ts and glob-info.ts
// (the conformance suite's ls and glob cases check the same and more, message for message).

import { describe, expect, it } from 'vitest';
import type { ShellBackend } from '../../protocol';
import { shQuote } from '../../../text/shell-quote';

const enc = (s: string) => new TextEncoder().encode(s);
/** A virtual path as a shell word in the workdir. */
const sh = (virtual: string) => shQuote(`.${virtual}`);
const rows = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `Row_${i + from}_content`).join('\n');

export function deepAgentsSandboxCases(backend: () => ShellBackend): void {
  const b = backend;
  const cat = async (path: string) => (await b().execute(`cat ${sh(path)}`)).output;
  const text = async (path: string, offset?: number, limit?: number) => (await b().read(path, offset, limit)).fileData?.content ?? '';

  describe('file operations', () => {
    it('uploads a file to the sandbox', async () => {
      expect(await b().uploadFiles([{ path: '/test-upload.txt', content: enc('Hello from test file!') }])).toEqual([{ path: '/test-upload.txt' }]);
      expect((await cat('/test-upload.txt')).trim()).toBe('Hello from test file!');
    });

    it('downloads a file from the sandbox', async () => {
      await b().uploadFiles([{ path: '/test-download.txt', content: enc('Download test content') }]);
      const [res] = await b().downloadFiles(['/test-download.txt']);
      expect(res?.error).toBeUndefined();
      expect(new TextDecoder().decode(res?.content).trim()).toBe('Download test content');
    });

    it('reports a missing file on download', async () => {
      const [res] = await b().downloadFiles(['/nonexistent-file-12345.txt']);
      expect(res?.content).toBeUndefined();
      expect(res?.error).toBe('file_not_found');
    });

    it('reads, writes and edits through the backend', async () => {
      await b().uploadFiles([{ path: '/read-test.txt', content: enc('Read test content') }]);
      expect(await text('/read-test.txt')).toContain('Read test content');
      await b().write('/write-test.txt', 'Written via BaseSandbox');
      expect((await cat('/write-test.txt')).trim()).toBe('Written via BaseSandbox');
      await b().write('/edit-test.txt', 'Hello World');
      await b().edit('/edit-test.txt', 'Hello World', 'Hello Edited World');
      expect((await cat('/edit-test.txt')).trim()).toBe('Hello Edited World');
    });

    it('uploads several files at once', async () => {
      const paths = ['/multi1.txt', '/multi2.txt', '/multi3.txt'];
      const res = await b().uploadFiles(paths.map((path, i) => ({ path, content: enc(`Content ${i + 1}`) })));
      expect(res.map((r) => r.error)).toEqual([undefined, undefined, undefined]);
      const out = (await b().execute(`cat ${paths.map(sh).join(' ')}`)).output;
      for (const i of [1, 2, 3]) expect(out).toContain(`Content ${i}`);
    });
  });

  describe('write', () => {
    const written = async (path: string, content: string) => {
      expect(await b().write(path, content)).toEqual({ path });
      return cat(path);
    };

    it('writes a new file', async () => {
      expect((await written('/wt-new.txt', 'Hello, sandbox!\nLine 2\nLine 3')).trim()).toBe('Hello, sandbox!\nLine 2\nLine 3');
    });

    it('creates parent folders', async () => {
      expect((await written('/wt-parents/deep/nested/dir/file.txt', 'Nested file content')).trim()).toBe('Nested file content');
    });

    it('overwrites an existing file', async () => {
      await b().write('/wt-existing.txt', 'First content');
      expect((await written('/wt-existing.txt', 'Second content')).trim()).toBe('Second content');
    });

    it('keeps special characters and escape sequences exactly', async () => {
      const content = 'Special chars: $VAR, `command`, $(subshell)\nTab\there\nBackslash: \\';
      expect((await written('/wt-special.txt', content)).trim()).toBe(content);
    });

    it('writes an empty file', async () => {
      await b().write('/wt-empty.txt', '');
      expect((await b().execute(`[ -f ${sh('/wt-empty.txt')} ] && echo exists || echo missing`)).output).toContain('exists');
    });

    it('writes a file with spaces in its path', async () => {
      expect((await written('/wt-spaces/dir with spaces/file name.txt', 'Content in file with spaces')).trim()).toBe('Content in file with spaces');
    });

    it('writes unicode content', async () => {
      const content = 'Hello 👋 世界 مرحبا Привет 🌍\nLine with émojis 🎉';
      expect((await written('/wt-unicode.txt', content)).trim()).toBe(content);
    });

    it('collapses consecutive slashes in the path', async () => {
      expect((await b().write('/wt-slashes//subdir///file.txt', 'Content')).error).toBeUndefined();
      expect((await cat('/wt-slashes/subdir/file.txt')).trim()).toBe('Content');
    });

    it('writes 1000 lines', async () => {
      await b().write('/wt-long.txt', Array.from({ length: 1000 }, (_, i) => `Line ${i} with some content here`).join('\n'));
      expect((await b().execute(`wc -l < ${sh('/wt-long.txt')}`)).output.trim()).toBe('999');
    });

    it('writes content of newlines only', async () => {
      await b().write('/wt-newlines.txt', '\n\n\n\n\n');
      expect((await b().execute(`wc -l < ${sh('/wt-newlines.txt')}`)).output.trim()).toBe('5');
    });
  });

  describe('read', () => {
    it('reads a file', async () => {
      await b().write('/rd-basic.txt', 'Line 1\nLine 2\nLine 3');
      const res = await b().read('/rd-basic.txt');
      expect(res.error).toBeUndefined();
      for (const line of ['Line 1', 'Line 2', 'Line 3']) expect(res.fileData?.content).toContain(line);
    });

    it('reports a missing file as not found', async () => {
      expect((await b().read('/rd-nonexistent-xyz.txt')).error?.toLowerCase()).toContain('not found');
    });

    it('reads an empty file without an error', async () => {
      await b().write('/rd-empty.txt', '');
      expect((await b().read('/rd-empty.txt')).error).toBeUndefined();
    });

    it('honours offset, limit and both', async () => {
      await b().write('/rd-offset.txt', rows(10));
      const offset = await text('/rd-offset.txt', 5);
      expect(offset).toContain('Row_6_content');
      expect(offset).not.toContain('Row_1_content');
      await b().write('/rd-limit.txt', rows(100));
      const limit = await text('/rd-limit.txt', 0, 5);
      expect(limit).toContain('Row_5_content');
      expect(limit).not.toContain('Row_6_content');
      await b().write('/rd-offset-limit.txt', rows(20));
      const both = await text('/rd-offset-limit.txt', 10, 5);
      expect(both).toContain('Row_11_content');
      expect(both).toContain('Row_15_content');
      expect(both).not.toContain('Row_10_content');
      expect(both).not.toContain('Row_16_content');
    });

    it('reads unicode content', async () => {
      await b().write('/rd-unicode.txt', 'Hello 👋 世界\nПривет мир\nمرحبا العالم');
      const content = await text('/rd-unicode.txt');
      for (const part of ['👋', '世界', 'Привет']) expect(content).toContain(part);
    });

    it('reads a file with very long lines', async () => {
      await b().write('/rd-long-lines.txt', `Short line\n${'x'.repeat(3000)}\nAnother short line`);
      const res = await b().read('/rd-long-lines.txt');
      expect(res.error).toBeUndefined();
      expect(res.fileData?.content).toContain('Short line');
    });

    it('gives no lines for limit 0 and none for an offset at or past the end', async () => {
      await b().write('/rd-zero.txt', 'Line 1\nLine 2\nLine 3');
      expect(await text('/rd-zero.txt', 0, 0)).not.toContain('Line 1');
      expect(await text('/rd-zero.txt', 100, 10)).toBe('');
      await b().write('/rd-exact.txt', Array.from({ length: 5 }, (_, i) => `Line ${i + 1}`).join('\n'));
      expect(await text('/rd-exact.txt', 5, 10)).toBe('');
    });

    it('reads a large file in chunks', async () => {
      await b().write('/rd-chunked.txt', Array.from({ length: 1000 }, (_, i) => `Line_${String(i).padStart(4, '0')}_content`).join('\n'));
      const first = await text('/rd-chunked.txt', 0, 100);
      expect(first).toContain('Line_0099_content');
      expect(first).not.toContain('Line_0100_content');
      const middle = await text('/rd-chunked.txt', 500, 100);
      expect(middle).toContain('Line_0500_content');
      expect(middle).toContain('Line_0599_content');
      expect(middle).not.toContain('Line_0499_content');
      expect(await text('/rd-chunked.txt', 900, 100)).toContain('Line_0999_content');
    });
  });

  describe('edit', () => {
    it('edits a single occurrence', async () => {
      await b().write('/ed-single.txt', 'Hello world\nGoodbye world\nHello again');
      expect(await b().edit('/ed-single.txt', 'Goodbye', 'Farewell')).toMatchObject({ occurrences: 1 });
      const content = await text('/ed-single.txt');
      expect(content).toContain('Farewell world');
      expect(content).not.toContain('Goodbye');
    });

    it('refuses several occurrences without replaceAll and changes nothing', async () => {
      await b().write('/ed-multi-fail.txt', 'apple\nbanana\napple\norange\napple');
      expect((await b().edit('/ed-multi-fail.txt', 'apple', 'pear', false)).error).toContain('appears 3 times');
      expect(await text('/ed-multi-fail.txt')).not.toContain('pear');
    });

    it('replaces every occurrence with replaceAll', async () => {
      await b().write('/ed-replace-all.txt', 'apple\nbanana\napple\norange\napple');
      expect(await b().edit('/ed-replace-all.txt', 'apple', 'pear', true)).toMatchObject({ occurrences: 3 });
      const out = await cat('/ed-replace-all.txt');
      expect(out).not.toContain('apple');
      expect(out.split('pear').length - 1).toBe(3);
    });

    it('reports text not found and a missing file as not found', async () => {
      await b().write('/ed-not-found.txt', 'Hello world');
      expect((await b().edit('/ed-not-found.txt', 'nonexistent', 'replacement')).error?.toLowerCase()).toContain('not found');
      expect((await b().edit('/ed-nonexistent-xyz.txt', 'old', 'new')).error?.toLowerCase()).toContain('not found');
    });

    it('treats $ and regex metacharacters literally', async () => {
      await b().write('/ed-special.txt', 'Price: $100.00\nPattern: [a-z]*\nPath: /usr/bin');
      expect((await b().edit('/ed-special.txt', '$100.00', '$200.00')).error).toBeUndefined();
      expect((await b().edit('/ed-special.txt', '[a-z]*', '[0-9]+')).error).toBeUndefined();
      const content = await text('/ed-special.txt');
      expect(content).toContain('$200.00');
      expect(content).toContain('[0-9]+');
    });

    it('replaces across lines, deletes with an empty string, accepts identical strings', async () => {
      await b().write('/ed-multiline.txt', 'Line 1\nLine 2\nLine 3');
      expect(await b().edit('/ed-multiline.txt', 'Line 1\nLine 2', 'Combined')).toMatchObject({ occurrences: 1 });
      expect(await text('/ed-multiline.txt')).toBe('Combined\nLine 3');
      await b().write('/ed-delete.txt', 'Keep this\nDelete this part\nKeep this too');
      expect(await b().edit('/ed-delete.txt', 'Delete this part\n', '')).toMatchObject({ occurrences: 1 });
      expect(await text('/ed-delete.txt')).toBe('Keep this\nKeep this too');
      await b().write('/ed-identical.txt', 'Same text');
      expect(await b().edit('/ed-identical.txt', 'Same text', 'Same text')).toMatchObject({ occurrences: 1 });
      expect(await text('/ed-identical.txt')).toBe('Same text');
    });

    it('edits unicode, whitespace-only and very long strings', async () => {
      await b().write('/ed-unicode.txt', 'Hello 👋 world\n世界 is beautiful');
      expect(await b().edit('/ed-unicode.txt', '👋', '🌍')).toMatchObject({ occurrences: 1 });
      expect(await text('/ed-unicode.txt')).toBe('Hello 🌍 world\n世界 is beautiful');
      await b().write('/ed-whitespace.txt', 'Line1    Line2');
      expect(await b().edit('/ed-whitespace.txt', '    ', ' ')).toMatchObject({ occurrences: 1 });
      expect(await text('/ed-whitespace.txt')).toBe('Line1 Line2');
      await b().write('/ed-long.txt', `Start\n${'x'.repeat(1000)}\nEnd`);
      expect(await b().edit('/ed-long.txt', 'x'.repeat(1000), 'y'.repeat(1000))).toMatchObject({ occurrences: 1 });
      expect(await text('/ed-long.txt')).toBe(`Start\n${'y'.repeat(1000)}\nEnd`);
    });

    it('keeps line endings and edits inside a line', async () => {
      await b().write('/ed-line-endings.txt', 'Line 1\nLine 2\nLine 3\n');
      expect((await b().edit('/ed-line-endings.txt', 'Line 2', 'Modified Line 2')).error).toBeUndefined();
      expect(Buffer.from((await b().readRaw('/ed-line-endings.txt')).data ?? []).toString()).toBe('Line 1\nModified Line 2\nLine 3\n');
      await b().write('/ed-partial.txt', 'The quick brown fox jumps over the lazy dog');
      expect(await b().edit('/ed-partial.txt', 'brown fox', 'red cat')).toMatchObject({ occurrences: 1 });
      expect(await cat('/ed-partial.txt')).toContain('The quick red cat jumps');
    });
  });

  describe('grep', () => {
    it('finds a literal pattern in several files, with the glob filter', async () => {
      await b().write('/gr-basic/file1.txt', 'Hello world\nGoodbye world');
      await b().write('/gr-basic/file2.txt', 'Hello there\nGoodbye friend');
      const res = await b().grep('Hello', '/gr-basic');
      expect(res.matches).toEqual([
        { path: '/gr-basic/file1.txt', line: 1, text: 'Hello world' },
        { path: '/gr-basic/file2.txt', line: 1, text: 'Hello there' },
      ]);
      for (const ext of ['txt', 'py', 'md']) await b().write(`/gr-glob/test.${ext}`, 'pattern_match');
      expect((await b().grep('pattern_match', '/gr-glob', '*.py')).matches?.map((m) => m.path)).toEqual(['/gr-glob/test.py']);
    });

    it('returns no matches for an absent pattern and for an empty folder', async () => {
      await b().write('/gr-no-match/file.txt', 'Hello world');
      expect(await b().grep('nonexistent_str', '/gr-no-match')).toEqual({ matches: [], truncated: false });
      await b().execute(`mkdir -p ${sh('/gr-empty-dir')}`);
      expect(await b().grep('anything', '/gr-empty-dir')).toEqual({ matches: [], truncated: false });
    });

    it('gives every match of a file with its line number', async () => {
      await b().write('/gr-multi/fruits.txt', 'apple\nbanana\napple\norange\napple');
      expect((await b().grep('apple', '/gr-multi')).matches?.map((m) => m.line)).toEqual([1, 3, 5]);
      await b().write('/gr-line-nums/long.txt', Array.from({ length: 100 }, (_, i) => `Line ${i + 1}`).join('\n'));
      expect((await b().grep('Line 50', '/gr-line-nums')).matches).toEqual([{ path: '/gr-line-nums/long.txt', line: 50, text: 'Line 50' }]);
    });

    it('matches literally, case-sensitively, in unicode and special characters', async () => {
      await b().write('/gr-literal/numbers.txt', 'test123\ntest456\nabcdef');
      expect((await b().grep('test123', '/gr-literal')).matches?.map((m) => m.text)).toEqual(['test123']);
      await b().write('/gr-unicode/unicode.txt', 'Hello 世界\nПривет мир\n测试 pattern');
      expect((await b().grep('世界', '/gr-unicode')).matches?.map((m) => m.text)).toEqual(['Hello 世界']);
      await b().write('/gr-case/case.txt', 'Hello\nhello\nHELLO');
      expect((await b().grep('Hello', '/gr-case')).matches?.map((m) => m.text)).toEqual(['Hello']);
      await b().write('/gr-special/special.txt', 'Price: $100\nPath: /usr/bin\nPattern: [a-z]*');
      expect((await b().grep('$100', '/gr-special')).matches?.map((m) => m.text)).toEqual(['Price: $100']);
      expect((await b().grep('[a-z]*', '/gr-special')).matches?.map((m) => m.text)).toEqual(['Pattern: [a-z]*']);
    });

    it('searches nested folders', async () => {
      for (const p of ['/gr-nested/root.txt', '/gr-nested/sub1/level1.txt', '/gr-nested/sub1/sub2/level2.txt']) await b().write(p, 'target_nested here');
      expect((await b().grep('target_nested', '/gr-nested')).matches).toHaveLength(3);
    });
  });

  describe('command execution', () => {
    it('runs echo, reports exit codes, multiline output and stderr', async () => {
      expect(await b().execute('echo "hello"')).toMatchObject({ exitCode: 0, output: 'hello', truncated: false });
      expect((await b().execute('exit 42')).exitCode).toBe(42);
      const lines = await b().execute('echo "line1" && echo "line2" && echo "line3"');
      expect(lines).toMatchObject({ exitCode: 0, output: 'line1\nline2\nline3' });
      expect((await b().execute('echo "error message" >&2')).output).toContain('error message');
    });

    it('keeps variables within a command and fails an unknown command', async () => {
      expect(await b().execute('export MY_VAR="test_value" && echo $MY_VAR')).toMatchObject({ exitCode: 0, output: 'test_value' });
      expect((await b().execute('nonexistent_command_12345')).exitCode).not.toBe(0);
    });
  });
}
