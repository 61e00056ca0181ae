// The build identity the host and its clients compare (SPEC §16): the bundle's content, taken by
// the build, so a rebuild of the same source (npm's `prepare` on a `file:` install) is the same build.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleIdentity } from '../../../scripts/build-id';
import { BUILD_ID_FILE, buildIdOf, packageVersion } from './package-version';

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((r) => rmSync(r, { recursive: true, force: true })));

describe('buildId', () => {
  const chunks = [
    { fileName: 'cli.js', code: 'import "./chunks/a-1.js";' },
    { fileName: 'index.js', code: 'import "./chunks/a-1.js";' },
    { fileName: 'chunks/a-1.js', code: 'export const a = 1;' },
  ];

  it('is the same for the same chunks in any order, and changes when any chunk, or its name, does', () => {
    const digest = bundleIdentity(chunks);
    expect(digest).toMatch(/^[0-9a-f]{16}$/);
    expect(bundleIdentity([...chunks].reverse())).toBe(digest);
    expect(bundleIdentity([...chunks.slice(0, 2), { fileName: 'chunks/a-1.js', code: 'export const a = 2;' }])).not.toBe(digest);
    expect(bundleIdentity([...chunks.slice(0, 2), { fileName: 'chunks/a-2.js', code: 'export const a = 1;' }])).not.toBe(digest);
    expect(bundleIdentity([...chunks, { fileName: 'chunks/b-1.js', code: '' }])).not.toBe(digest);
  });

  it('is the version and the digest the build kept beside the bundle; the version alone without one', () => {
    const root = mkdtempSync(join(tmpdir(), 'dd-build-'));
    roots.push(root);
    expect(buildIdOf(root)).toBe(packageVersion());
    writeFileSync(join(root, BUILD_ID_FILE), 'not a digest\n');
    expect(buildIdOf(root)).toBe(packageVersion());
    writeFileSync(join(root, BUILD_ID_FILE), '0123456789abcdef\n');
    expect(buildIdOf(root)).toBe(`${packageVersion()}+0123456789abcdef`);
  });

  it('the built bundle (npm test builds first) keeps the digest of its files as written', () => {
    const root = join(import.meta.dirname, '../../../out/main');
    if (!existsSync(join(root, 'cli.js'))) return;
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((name) => /\.(c|m)?js$/.test(name));
    const written = files.map((name) => ({ fileName: name, code: readFileSync(join(root, name), 'utf8') }));
    expect(readFileSync(join(root, BUILD_ID_FILE), 'utf8').trim()).toBe(bundleIdentity(written));
  });
});
