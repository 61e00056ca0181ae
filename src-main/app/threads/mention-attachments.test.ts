import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FilesystemBackend } from '../../core/backends/filesystem/filesystem';
import { ATTACH_MAX_LINES, fileAttachments, mentionedPaths } from './mention-attachments';

let folder: string;
let backend: FilesystemBackend;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'deepdesk-mentions-'));
  mkdirSync(join(folder, 'src'));
  writeFileSync(join(folder, 'src/a.ts'), 'export const a = 1;\nexport const b = 2;\n');
  writeFileSync(join(folder, 'big.txt'), Array.from({ length: ATTACH_MAX_LINES + 500 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
  writeFileSync(join(folder, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
  backend = new FilesystemBackend({ rootDir: folder });
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

describe('@-mentions attach files', () => {
  it('finds mentions, without trailing punctuation or repeats, and never outside the folder', () => {
    expect(mentionedPaths('look at @/src/a.ts, and @src/a.ts. also me@example.com @../etc/passwd')).toEqual(['/src/a.ts']);
  });

  it('attaches a mentioned file whole', async () => {
    expect(await fileAttachments('why is @/src/a.ts odd?', backend)).toEqual(['<attached_file path="/src/a.ts">\nexport const a = 1;\nexport const b = 2;\n</attached_file>']);
  });

  it('attaches the first part of a big file and says how to read the rest', async () => {
    const text = (await fileAttachments('@/big.txt', backend)).join('\n\n');
    expect(text).toContain(`<attached_file path="/big.txt" lines="1-${ATTACH_MAX_LINES} of ${ATTACH_MAX_LINES + 500}">`);
    expect(text).toContain(`line ${ATTACH_MAX_LINES}\n</attached_file>`);
    expect(text).not.toContain(`line ${ATTACH_MAX_LINES + 1}\n`);
    expect(text).toContain(`read_file /big.txt with offset=${ATTACH_MAX_LINES}`);
  });

  it('leaves mentions of missing, binary or folder paths as plain text', async () => {
    expect(await fileAttachments('see @/nope.ts @/logo.png @/src', backend)).toEqual([]);
  });
});
