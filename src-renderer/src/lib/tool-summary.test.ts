import { describe, it, expect } from 'vitest';
import { commandOf, oneLine, previewLines, summarizeArgs, tailLines, toolCardName } from './tool-summary';

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

  it('previews the first lines', () => {
    expect(previewLines('a\nb\nc', 2)).toEqual({ text: 'a\nb', hidden: 1 });
    expect(previewLines('a', 2)).toEqual({ text: 'a', hidden: 0 });
  });
});

describe('one-line cards', () => {
  it('says what a read, grep, glob or ls did and what came back', () => {
    const read = Array.from({ length: 120 }, (_, i) => `${String(i + 1).padStart(6)}\tline ${i}`).join('\n');
    expect(oneLine('read_file', { file_path: '/README.md' }, read)).toBe('Read README.md · 120 lines');
    expect(oneLine('read_file', { file_path: '/a.ts' }, `${read}\n\n[Showing lines 1-100 of 500. Continue with offset=100.]`)).toBe('Read a.ts · lines 1–100 of 500');
    expect(oneLine('read_file', { file_path: '/x' }, "Error: File '/x' not found")).toBe("Read x · File '/x' not found");
    expect(oneLine('read_file', { file_path: '/a.ts' }, undefined)).toBe('Read a.ts');
    expect(oneLine('grep', { pattern: 'TODO' }, '/a.ts\n/b.ts\n/c.ts')).toBe('Searched for "TODO" · 3 files');
    expect(oneLine('grep', { pattern: 'x', output_mode: 'content', path: '/src' }, '/src/a.ts:\n  3: x = 1\n  9: x()\n/src/b.ts:\n  1: x')).toBe('Searched for "x" in src · 3 matches in 2 files');
    expect(oneLine('grep', { pattern: 'zz' }, 'No matches found')).toBe('Searched for "zz" · no matches');
    expect(oneLine('glob', { pattern: '**/*.ts' }, '/a.ts\n/b/c.ts')).toBe('Found **/*.ts · 2 files');
    expect(oneLine('ls', { path: '/' }, '/memories/ (directory)\n/a.ts (3 bytes)')).toBe('Listed the folder · 2 entries');
    expect(oneLine('ls', { path: '/src' }, '/src/a.ts (3 bytes)')).toBe('Listed src · 1 entry');
  });

  it('labels a read of a file that is not text by what it holds, never `0 lines`', () => {
    const read = (path: string, output: string) => oneLine('read_file', { file_path: path }, output);
    // As read_file (src-main/core/tools/read-media.ts) words them.
    expect(read('/spec.pdf', 'Document file /spec.pdf (application/pdf, 12.1 KB), 2 pages')).toBe('Read spec.pdf · 2 pages');
    expect(read('/one.pdf', 'Document file /one.pdf (application/pdf, 1 KB), 1 page')).toBe('Read one.pdf · 1 page');
    expect(read('/spec.pdf', "Document file /spec.pdf (application/pdf, 12.1 KB), 2 pages. This model does not take PDF input; the PDF's text:\n--- page 1 ---\nAlpha\n--- page 2 ---\nBeta")).toBe('Read spec.pdf · 2 pages');
    expect(read('/big.pdf', "Document file /big.pdf (application/pdf, 2 MB), 40 pages. This model does not take PDF input; the PDF's text:\n--- page 1 ---\nA\n\n[Showing pages 1-12 of 40. Continue with offset=12.]")).toBe('Read big.pdf · pages 1–12 of 40');
    expect(read('/scan.pdf', 'Document file /scan.pdf (application/pdf, 80 KB), 2 pages without a text layer (scanned?): no text to show.\n[document file /scan.pdf, 80 KB: this model does not take document input]')).toBe('Read scan.pdf · 2 pages, no text layer');
    expect(read('/deck.pptx', 'Document file /deck.pptx (application/vnd.openxmlformats-officedocument.presentationml.presentation, 30 KB), 3 slides. Its text:\n--- slide 1 ---\nAgenda')).toBe('Read deck.pptx · 3 slides');
    expect(read('/shot.png', 'Image file /shot.png (image/png, 48.2 KB), 800×600')).toBe('Read shot.png · image 800×600');
    expect(read('/photo.heic', 'Image file /photo.heic (image/heic, 1.2 MB)')).toBe('Read photo.heic · image');
    expect(read('/a.wav', 'Audio file /a.wav (audio/wav, 16 KB), 0.5 s')).toBe('Read a.wav · audio 0.5 s');
    expect(read('/pic.png', '[image file /pic.png, 48.2 KB: this model does not take image input]')).toBe('Read pic.png · image, not shown to this model');
    expect(read('/app.bin', 'Binary file /app.bin (application/octet-stream, 3 MB) cannot be shown as text. Use execute with a suitable converter if you need its contents.')).toBe('Read app.bin · binary, not shown as text');
    // A text file that merely starts like one is still counted in lines.
    expect(read('/notes.md', '     1\tImage file /x.png (image/png, 1 KB), 2×2\n     2\tmore')).toBe('Read notes.md · 2 lines');
  });

  it('keeps the last lines of output, where errors are', () => {
    expect(tailLines('1\n2\n3\n4\n', 2)).toEqual({ text: '3\n4', hidden: 2 });
    expect(tailLines('only', 3)).toEqual({ text: 'only', hidden: 0 });
  });
});
