// The build identity the host and its clients compare (SPEC §16): the bundle's content, so a
// rebuild of the same source (npm's `prepare` on a `file:` install) is the same build.

import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleDigest } from './package-version';

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((r) => rmSync(r, { recursive: true, force: true })));

function bundle(files: Record<string, string>, when: Date): string {
  const root = mkdtempSync(join(tmpdir(), 'dd-build-'));
  roots.push(root);
  mkdirSync(join(root, 'chunks'));
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(root, name), text);
    utimesSync(join(root, name), when, when);
  }
  return root;
}

describe('buildId', () => {
  const files = { 'cli.js': 'import "./chunks/a-1.js";', 'index.js': 'import "./chunks/a-1.js";', 'chunks/a-1.js': 'export const a = 1;' };

  it('is the same for a rebuild of the same source, whenever it was written, from any file of the bundle', () => {
    const first = bundle(files, new Date(2026, 0, 1));
    const again = bundle(files, new Date());
    const digest = bundleDigest(join(first, 'cli.js'));
    expect(digest).toMatch(/^[0-9a-f]{16}$/);
    expect(bundleDigest(join(again, 'cli.js'))).toBe(digest);
    expect(bundleDigest(join(again, 'chunks', 'a-1.js'))).toBe(digest);
  });

  it('changes when any file of the bundle changes', () => {
    const first = bundle(files, new Date());
    const changed = bundle({ ...files, 'chunks/a-1.js': 'export const a = 2;' }, new Date());
    expect(bundleDigest(join(changed, 'cli.js'))).not.toBe(bundleDigest(join(first, 'cli.js')));
  });

  it('is kept beside the bundle and taken again when a file is rewritten, even with the same size and times; a read-only bundle is hashed each time', () => {
    const root = bundle(files, new Date(2026, 0, 1));
    const digest = bundleDigest(join(root, 'cli.js'));
    expect(readFileSync(join(root, '.bundle-digest'), 'utf8').split('\n')[0]).toBe(digest);
    // A kept digest that lies is not believed once a file is not the one hashed.
    writeFileSync(join(root, 'chunks', 'a-1.js'), 'export const a = 3;');
    utimesSync(join(root, 'chunks', 'a-1.js'), new Date(2026, 0, 1), new Date(2026, 0, 1));
    const changed = bundleDigest(join(root, 'cli.js'));
    expect(changed).not.toBe(digest);
    expect(changed).toBe(bundleDigest(join(bundle({ ...files, 'chunks/a-1.js': 'export const a = 3;' }, new Date()), 'cli.js')));
    // A file added to the bundle.
    writeFileSync(join(root, 'chunks', 'b-2.js'), 'export const b = 2;');
    expect(bundleDigest(join(root, 'cli.js'))).not.toBe(changed);
    // Read-only: still the content's digest, nothing written.
    const readOnly = bundle(files, new Date());
    chmodSync(readOnly, 0o555);
    try {
      expect(bundleDigest(join(readOnly, 'cli.js'))).toBe(digest);
      expect(existsSync(join(readOnly, '.bundle-digest'))).toBe(process.getuid?.() === 0);
    } finally {
      chmodSync(readOnly, 0o755);
    }
  });

  it('is empty when not run from a bundle of .js files (a test transform)', () => {
    const root = bundle({ 'x.ts': 'x' }, new Date());
    expect(bundleDigest(join(root, 'x.ts'))).toBe('');
  });
});
