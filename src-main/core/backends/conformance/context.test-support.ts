// Shared plumbing for the conformance cases: the harness contract, a per-test backend,
// paths inside the suite's root folder and small assertion helpers.

import { afterEach, beforeEach, expect } from 'vitest';
import type { Backend, FileInfo } from '../protocol';
import { joinVirtual, normalizeVirtualPath, sortByPath } from '../paths';

export interface ConformanceInstance {
  backend: Backend;
  cleanup(): Promise<void>;
}

export interface ConformanceCapabilities {
  /**
   * Directory entries (paths ending in '/') that the backend always lists at `/` besides
   * the suite's own files, e.g. `['/memories/']` for the composite. Only used when the
   * suite's root is `/`.
   */
  rootListingExtras?: string[];
}

export interface ConformanceHarness {
  /** A fresh, empty backend for one test case. */
  create(): Promise<ConformanceInstance>;
  /** Virtual folder in which every file of the suite lives (default `/`). */
  root?: string;
  capabilities?: ConformanceCapabilities;
}

export interface SuiteContext {
  backend(): Backend;
  /** The root folder, normalised (`/` or e.g. `/memories`). */
  rootPath: string;
  /** Virtual path of `rel` inside the root; `v('')` is the root itself. */
  v(rel: string): string;
  /** Paths (dirs with their '/') `ls` of the root must return for these entries. */
  rootListing(paths: string[]): string[];
  seed(files: Record<string, string>): Promise<void>;
  seedBytes(rel: string, bytes: Uint8Array): Promise<void>;
  /** The file's exact stored text (via readRaw). */
  raw(rel: string): Promise<string>;
  /** Paths returned by ls, after checking dir entries end in '/' exactly when isDir. */
  lsPaths(path: string): Promise<string[]>;
}

export function setUpContext(harness: ConformanceHarness): SuiteContext {
  const checked = normalizeVirtualPath(harness.root ?? '/');
  if (!checked.ok) throw new Error(`conformance root refused: ${checked.error}`);
  const rootPath = checked.path;
  let instance: ConformanceInstance | undefined;

  beforeEach(async () => {
    instance = await harness.create();
  });
  afterEach(async () => {
    const current = instance;
    instance = undefined;
    await current?.cleanup();
  });

  const backend = () => {
    if (!instance) throw new Error('no backend: harness.create() did not run');
    return instance.backend;
  };
  const v = (rel: string) => joinVirtual(rootPath, rel);

  return {
    backend,
    rootPath,
    v,
    rootListing(paths) {
      const extras = rootPath === '/' ? harness.capabilities?.rootListingExtras ?? [] : [];
      return sortByPath([...paths, ...extras].map((path) => ({ path }))).map((e) => e.path);
    },
    async seed(files) {
      for (const [rel, content] of Object.entries(files)) {
        const res = await backend().write(v(rel), content);
        expect(res.error, `seed write ${v(rel)}`).toBeUndefined();
      }
    },
    async seedBytes(rel, bytes) {
      const [res] = await backend().uploadFiles([{ path: v(rel), content: bytes }]);
      expect(res?.error, `seed upload ${v(rel)}`).toBeUndefined();
    },
    async raw(rel) {
      const res = await backend().readRaw(v(rel));
      expect(res.error, `readRaw ${v(rel)}`).toBeUndefined();
      return Buffer.from(res.data ?? new Uint8Array()).toString('utf8');
    },
    async lsPaths(path) {
      const res = await backend().ls(path);
      expect(res.error, `ls ${path}`).toBeUndefined();
      const entries = res.entries ?? [];
      for (const e of entries) expect(e.path.endsWith('/'), `isDir of ${e.path}`).toBe(e.isDir === true);
      return entries.map((e) => e.path);
    },
  };
}

export const utf8Bytes = (s: string) => new TextEncoder().encode(s);
export const hex = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes).toString('hex') : undefined);
export const pathsOf = (items: { path: string }[] | undefined) => (items ?? []).map((i) => i.path);

/** The ISO 8601 shape `new Date().toISOString()` produces (other ISO forms accepted too). */
export function expectIsoTimestamp(info: FileInfo): void {
  expect(info.modifiedAt, `modifiedAt of ${info.path}`).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
  expect(Number.isNaN(Date.parse(info.modifiedAt ?? ''))).toBe(false);
}

/** Bytes 0..255: not UTF-8, holds NUL, CR and LF. */
export const ALL_BYTES = Uint8Array.from({ length: 256 }, (_, i) => i);

/** The PNG signature and the start of an IHDR chunk. */
export const PNG_BYTES = Uint8Array.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
  0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89,
]);
