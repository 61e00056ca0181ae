import { describe, it, expect } from 'vitest';
import { commandOf, oneLine, summarizeArgs, tailLines, toolCardName, type ShownResult } from './tool-summary';

describe('tool summaries', () => {
  it('summarizes arguments per tool', () => {
    expect(summarizeArgs('read_file', { file_path: '/src/a.ts', offset: 3 })).toBe('/src/a.ts');
    expect(summarizeArgs('ls', { path: '/src' })).toBe('/src');
    expect(summarizeArgs('execute', { command: 'npm test\nnpm run lint' })).toBe('npm test …');
    expect(summarizeArgs('grep', { pattern: 'TODO', path: '/src' })).toBe('"TODO" in /src');
    expect(summarizeArgs('glob', { pattern: '**/*.ts' })).toBe('**/*.ts');
    expect(summarizeArgs('task', { subagent_type: 'general-purpose', description: 'Find bugs' })).toBe('general-purpose: Find bugs');
    expect(summarizeArgs('write_todos', { todos: [{}, {}] })).toBe('2 items');
    expect(summarizeArgs('custom', { a: 1 })).toBe('{"a":1}');
    expect(summarizeArgs('custom', undefined)).toBe('');
    expect(summarizeArgs('read_file', 'garbage')).toBe('');
  });

  it('names a card by tool, target and status', () => {
    expect(toolCardName('execute', { command: 'npm test' }, 'Failed · exit 1')).toBe('execute npm test — Failed · exit 1');
    expect(toolCardName('write_file', { file_path: '/notes.txt', content: 'x' }, 'Done')).toBe('write_file /notes.txt — Done');
    expect(toolCardName('custom', undefined, 'Running')).toBe('custom — Running');
    expect(toolCardName('execute', { command: 'ls \u202Etxt.exe' }, 'Done')).toBe('execute ls ⟨U+202E⟩txt.exe — Done');
    expect(toolCardName('execute', { command: 'x'.repeat(300) }, 'Done')).toHaveLength(`execute  — Done`.length + 100);
  });

  it('reads the command of an execute call', () => {
    expect(commandOf({ command: 'ls -la' })).toBe('ls -la');
    expect(commandOf({})).toBeNull();
  });
});

describe('one-line cards', () => {
  /** A result as core sends it: its text, and the facts its tool counted. */
  const done = (output: string, gist?: ShownResult['gist'], isError = false): ShownResult => ({ output, ...(gist ? { gist } : {}), ...(isError ? { isError } : {}) });

  it('says what a read, grep, glob or ls did and what came back', () => {
    const read = Array.from({ length: 120 }, (_, i) => `${String(i + 1).padStart(6)}\tline ${i}`).join('\n');
    expect(oneLine('read_file', { file_path: '/README.md' }, done(read, { kind: 'read', from: 1, to: 120, total: 120 }))).toBe('Read README.md · 120 lines');
    expect(oneLine('read_file', { file_path: '/a.ts' }, done(`${read}\n\n[Showing lines 1-100 of 500. Continue with offset=100.]`, { kind: 'read', from: 1, to: 100, total: 500 }))).toBe('Read a.ts · lines 1–100 of 500');
    expect(oneLine('read_file', { file_path: '/x' }, done("Error: File '/x' not found", undefined, true))).toBe("Read x · File '/x' not found");
    expect(oneLine('read_file', { file_path: '/e' }, done('System reminder: File exists but has empty contents', { kind: 'read-empty' }))).toBe('Read e · empty');
    expect(oneLine('read_file', { file_path: '/a.ts' }, undefined)).toBe('Read a.ts');
    expect(oneLine('grep', { pattern: 'TODO' }, done('/a.ts\n/b.ts\n/c.ts', { kind: 'grep', matches: 5, files: 3, truncated: false }))).toBe('Searched for "TODO" · 3 files');
    expect(oneLine('grep', { pattern: 'x', output_mode: 'content', path: '/src' }, done('/src/a.ts:\n  3: x = 1\n  9: x()\n/src/b.ts:\n  1: x', { kind: 'grep', matches: 3, files: 2, truncated: false }))).toBe(
      'Searched for "x" in src · 3 matches in 2 files',
    );
    expect(oneLine('grep', { pattern: 'x', output_mode: 'count' }, done('/a: 1', { kind: 'grep', matches: 1, files: 1, truncated: false }))).toBe('Searched for "x" · 1 match in 1 file');
    expect(oneLine('grep', { pattern: 'zz' }, done('No matches found', { kind: 'grep', matches: 0, files: 0, truncated: false }))).toBe('Searched for "zz" · no matches');
    expect(oneLine('glob', { pattern: '**/*.ts' }, done('/a.ts\n/b/c.ts', { kind: 'glob', files: 2, truncated: false }))).toBe('Found **/*.ts · 2 files');
    expect(oneLine('glob', { pattern: '*.zz' }, done('No files found', { kind: 'glob', files: 0, truncated: false }))).toBe('Found *.zz · no files');
    expect(oneLine('ls', { path: '/' }, done('/memories/ (directory)\n/a.ts (3 bytes)', { kind: 'ls', entries: 2 }))).toBe('Listed the folder · 2 entries');
    expect(oneLine('ls', { path: '/src' }, done('/src/a.ts (3 bytes)', { kind: 'ls', entries: 1 }))).toBe('Listed src · 1 entry');
    expect(oneLine('ls', { path: '/e' }, done('No files found', { kind: 'ls', entries: 0 }))).toBe('Listed e · empty');
  });

  it("reads the tool's facts, never its words: other words, the same line", () => {
    // The text is the model's (SPEC §3) and may be worded otherwise; the one line follows the facts alone.
    const reworded = 'Nothing like core ever wrote\n[Showing lines 9-9 of 9. Continue with offset=9.]\nNo matches found\nNo files found';
    expect(oneLine('read_file', { file_path: '/a.ts' }, done(reworded, { kind: 'read', from: 1, to: 100, total: 500 }))).toBe('Read a.ts · lines 1–100 of 500');
    expect(oneLine('grep', { pattern: 'x', output_mode: 'content' }, done(reworded, { kind: 'grep', matches: 7, files: 2, truncated: true }))).toBe('Searched for "x" · 7 matches in 2 files');
    expect(oneLine('glob', { pattern: '*' }, done(reworded, { kind: 'glob', files: 4, truncated: false }))).toBe('Found * · 4 files');
    expect(oneLine('ls', {}, done(reworded, { kind: 'ls', entries: 3 }))).toBe('Listed the folder · 3 entries');
    expect(oneLine('read_file', { file_path: '/p.png' }, done(reworded, { kind: 'media', media: 'image', holds: { width: 8, height: 6 } }))).toBe('Read p.png · image 8×6');
  });

  it('says only what was done for a result stored without facts (an older thread): its words are never counted', () => {
    const read = Array.from({ length: 3 }, (_, i) => `${String(i + 1).padStart(6)}\tline ${i}`).join('\n');
    expect(oneLine('read_file', { file_path: '/a.ts' }, done(read))).toBe('Read a.ts');
    expect(oneLine('grep', { pattern: 'zz' }, done('No matches found'))).toBe('Searched for "zz"');
    expect(oneLine('glob', { pattern: '*.ts' }, done('/a.ts'))).toBe('Found *.ts');
    expect(oneLine('ls', { path: '/src' }, done('/src/a.ts (3 bytes)'))).toBe('Listed src');
  });

  it('labels a read of a file that is not text by what it holds, never `0 lines`', () => {
    const read = (path: string, gist: NonNullable<ShownResult['gist']>) => oneLine('read_file', { file_path: path }, done('(the words do not matter)', gist));
    expect(read('/spec.pdf', { kind: 'media', media: 'document', holds: { pages: 2 } })).toBe('Read spec.pdf · 2 pages');
    expect(read('/one.pdf', { kind: 'media', media: 'document', holds: { pages: 1 } })).toBe('Read one.pdf · 1 page');
    expect(read('/spec.pdf', { kind: 'document-text', unit: 'page', total: 2, from: 1, to: 2 })).toBe('Read spec.pdf · 2 pages');
    expect(read('/big.pdf', { kind: 'document-text', unit: 'page', total: 40, from: 1, to: 12 })).toBe('Read big.pdf · pages 1–12 of 40');
    expect(read('/scan.pdf', { kind: 'document-text', unit: 'page', total: 2, from: 0, to: 0, noTextLayer: true })).toBe('Read scan.pdf · 2 pages, no text layer');
    expect(read('/deck.pptx', { kind: 'document-text', unit: 'slide', total: 3, from: 1, to: 3 })).toBe('Read deck.pptx · 3 slides');
    expect(read('/shot.png', { kind: 'media', media: 'image', holds: { width: 800, height: 600 } })).toBe('Read shot.png · image 800×600');
    expect(read('/photo.heic', { kind: 'media', media: 'image' })).toBe('Read photo.heic · image');
    expect(read('/a.wav', { kind: 'media', media: 'audio', holds: { seconds: 0.5 } })).toBe('Read a.wav · audio 0.5 s');
    expect(read('/pic.png', { kind: 'media-not-taken', media: 'image' })).toBe('Read pic.png · image, not shown to this model');
    expect(read('/app.bin', { kind: 'binary' })).toBe('Read app.bin · binary, not shown as text');
    // A text file whose lines read like a media line is counted in lines: the facts say it is text.
    expect(oneLine('read_file', { file_path: '/notes.md' }, done('     1\tImage file /x.png (image/png, 1 KB), 2×2\n     2\tmore', { kind: 'read', from: 1, to: 2, total: 2 }))).toBe('Read notes.md · 2 lines');
  });

  it('keeps the last lines of output, where errors are', () => {
    expect(tailLines('1\n2\n3\n4\n', 2)).toEqual({ text: '3\n4', hidden: 2 });
    expect(tailLines('only', 3)).toEqual({ text: 'only', hidden: 0 });
  });
});
