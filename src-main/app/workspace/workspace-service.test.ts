import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FilesystemBackend } from '../../core/backends/filesystem/filesystem';
import { makePdf, makeWav } from '../../core/media/testing/fixtures';
import { WorkspaceService, type FileChange } from './workspace-service';

let folder: string;
let service: WorkspaceService;
let changes: FileChange[][];
let waiters: Array<() => void>;

beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'deepdesk-ws-'));
  mkdirSync(join(folder, 'src'));
  writeFileSync(join(folder, 'src/index.ts'), 'export {};\n');
  changes = [];
  waiters = [];
  service = new WorkspaceService({
    folder,
    backend: new FilesystemBackend({ rootDir: folder }),
    onChange: (batch) => {
      changes.push(batch);
      for (const w of waiters.splice(0)) w();
    },
  });
  await service.start();
});
afterEach(async () => {
  await service.dispose();
  rmSync(folder, { recursive: true, force: true });
});

const nextBatch = () => new Promise<void>((resolve) => waiters.push(resolve));

describe('WorkspaceService', () => {
  it('reads audio, video and PDFs whole for the viewer, and only names one over 10 MB', async () => {
    const wav = makeWav(0.5);
    const pdf = makePdf(['one', 'two']);
    writeFileSync(join(folder, 'a.wav'), wav);
    writeFileSync(join(folder, 'doc.pdf'), pdf);
    writeFileSync(join(folder, 'clip.webm'), Buffer.alloc(10 * 1024 * 1024 + 1));
    expect(await service.read('/a.wav')).toEqual({ kind: 'media', path: '/a.wav', media: 'audio', mimeType: 'audio/wav', data: wav.toString('base64') });
    expect(await service.read('/doc.pdf')).toEqual({ kind: 'media', path: '/doc.pdf', media: 'document', mimeType: 'application/pdf', data: pdf.toString('base64') });
    expect(await service.read('/clip.webm')).toEqual({ kind: 'binary', path: '/clip.webm', mimeType: 'video/webm', size: 10 * 1024 * 1024 + 1, tooLarge: true });
  });

  it('says which paths are files in the folder (links are shown only for those)', async () => {
    symlinkSync('/etc/hostname', join(folder, 'outside-link'));
    expect(await service.exists(['/src/index.ts', 'src/index.ts', '/src', '/missing.md', '/../etc/passwd', '/outside-link', '/src/index.ts/x'])).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('reports files added on disk as one debounced batch, ignoring node_modules', async () => {
    const batch = nextBatch();
    mkdirSync(join(folder, 'node_modules/pkg'), { recursive: true });
    writeFileSync(join(folder, 'node_modules/pkg/index.js'), 'x');
    writeFileSync(join(folder, 'a.txt'), 'a');
    writeFileSync(join(folder, 'src/b.ts'), 'b');
    await batch;
    const seen = changes.flat().map((c) => `${c.kind} ${c.path}`);
    expect(seen).toContain('add /a.txt');
    expect(seen.some((s) => s.includes('node_modules'))).toBe(false);
  });

  it('tells new folders from new files and reports a deleted folder', async () => {
    let batch = nextBatch();
    mkdirSync(join(folder, 'docs'));
    await batch;
    let seen = changes.flat().map((c) => `${c.kind} ${c.path}`);
    expect(seen).toEqual(['addDir /docs']);
    batch = nextBatch();
    writeFileSync(join(folder, 'docs/readme.md'), '# hi');
    await batch;
    seen = changes.flat().map((c) => `${c.kind} ${c.path}`);
    expect(seen).toContain('add /docs/readme.md');
    changes = [];
    batch = nextBatch();
    rmSync(join(folder, 'docs'), { recursive: true });
    await batch;
    seen = changes.flat().map((c) => `${c.kind} ${c.path}`);
    expect(seen).toContain('unlink /docs');
  });

  it('marks what the folder\'s .gitignore files ignore, at any depth', async () => {
    writeFileSync(join(folder, '.gitignore'), 'dist/\n*.log\n');
    mkdirSync(join(folder, 'dist'));
    mkdirSync(join(folder, '.git'));
    writeFileSync(join(folder, 'debug.log'), '');
    writeFileSync(join(folder, 'src/.gitignore'), 'gen.ts\n');
    writeFileSync(join(folder, 'src/gen.ts'), '');
    writeFileSync(join(folder, 'src/keep.log.ts'), '');
    const flags = (entries: Array<{ path: string; ignored?: boolean }>) => Object.fromEntries(entries.map((e) => [e.path, e.ignored === true]));
    expect(flags(await service.list('/'))).toEqual({ '/.git/': true, '/.gitignore': false, '/debug.log': true, '/dist/': true, '/src/': false });
    expect(flags(await service.list('/src'))).toEqual({ '/src/.gitignore': false, '/src/gen.ts': true, '/src/index.ts': false, '/src/keep.log.ts': false });
  });

  it('lists, reads and searches through the folder backend', async () => {
    expect(await service.list('/')).toEqual([expect.objectContaining({ path: '/src/', isDir: true })]);
    expect(await service.read('/src/index.ts')).toEqual({ kind: 'text', path: '/src/index.ts', text: 'export {};', truncated: false });
    expect(await service.search('index')).toEqual(['/src/index.ts']);
    const batch = nextBatch();
    writeFileSync(join(folder, 'src/index.test.ts'), 'x');
    await batch;
    expect(await service.search('index')).toEqual(['/src/index.ts', '/src/index.test.ts']);
    await expect(service.read('/../etc/passwd')).rejects.toThrow(/not allowed/);
  });
});
