// The generated benchmark data under .bench/data (gitignored), built once and reused:
// - tree/: ~20,000 files / ~60 MB shaped like a monorepo: nested packages of TypeScript,
//   docs, tests, a .git folder, .gitignore'd folders (node_modules, dist, a nested
//   generated/), binary assets and one file over grep's 10 MB limit;
// - huge.log: 1 GB of log lines, for late-window reads;
// - edit-50mb.ts: 50 MB of source with one unique marker in the middle, for edit;
// - memories-{1k,20k,100k}.sqlite: Deepdesk databases holding that many memories.
// Each part has a manifest; a part is rebuilt when it is missing, stale or --regenerate.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { MEMORIES_NAMESPACE } from '../../src-main/core/backends/store/memory-store-api';
import { openDatabase, StoreBackend } from '../../src-main/core/backends/store/store';
import { generateText, makeRng, pick, type Rng, sentence, type TextKind, word } from './text-gen';
import { progress } from './report';

/** Bump a part's version when its shape changes: stale data is then rebuilt. */
const VERSIONS = {
  tree: 2, 'huge.log': 1, 'edit-50mb.ts': 1, 'folder-100k': 1, 'repo-100k': 1, 'memories-1k.sqlite': 1, 'memories-20k.sqlite': 1, 'memories-100k.sqlite': 1,
} as const;
type Part = keyof typeof VERSIONS;

/** Patterns for grep: in a handful of files, on many lines, and nowhere. */
export const GREP_PATTERNS = {
  rare: 'legacyConfigLoader',
  common: 'return',
  absent: 'qzxv_absent_9k',
} as const;

export const EDIT_MARKER = 'UNIQUE_EDIT_TARGET_7731';

export interface TreeData {
  dir: string;
  files: number;
  bytes: number;
  /** Files and bytes that grep/glob see (outside .git and ignored folders). */
  visibleFiles: number;
}

export interface HugeData {
  file: string;
  bytes: number;
  lines: number;
}

export interface EditData {
  file: string;
  bytes: number;
}

interface Manifest<T> {
  version: number;
  data: T;
}

function readManifest<T>(file: string, version: number): T | null {
  try {
    const m = JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest<T>;
    return m.version === version ? m.data : null;
  } catch {
    return null;
  }
}

function writeManifest<T>(file: string, version: number, data: T): void {
  fs.writeFileSync(file, JSON.stringify({ version, data } satisfies Manifest<T>, null, 2));
}

/** Reuses `<name>` under dataDir when its manifest is current, else builds it. */
async function cached<T>(dataDir: string, name: Part, regenerate: boolean, build: (target: string) => Promise<T> | T): Promise<T> {
  const target = path.join(dataDir, name);
  const manifest = path.join(dataDir, `${name}.manifest.json`);
  if (!regenerate) {
    const hit = readManifest<T>(manifest, VERSIONS[name]);
    if (hit !== null && fs.existsSync(target)) return hit;
  }
  fs.rmSync(manifest, { force: true });
  fs.rmSync(target, { recursive: true, force: true });
  const start = performance.now();
  progress(`generating ${name} (one-time; reused from .bench/data afterwards)`);
  const data = await build(target);
  writeManifest(manifest, VERSIONS[name], data);
  progress(`generated ${name} in ${((performance.now() - start) / 1000).toFixed(1)} s`);
  return data;
}

export function ensureTree(dataDir: string, regenerate: boolean): Promise<TreeData> {
  return cached(dataDir, 'tree', regenerate, buildTree);
}

/** 100,000 small source files in 1,000 folders, for the window's big-folder start-up. */
export function ensureFolder100k(dataDir: string, regenerate: boolean): Promise<{ dir: string; files: number }> {
  return cached(dataDir, 'folder-100k', regenerate, (root) => {
    let files = 0;
    for (let d = 0; d < 1000; d++) {
      const dir = path.join(root, `pkg${Math.floor(d / 100)}`, `mod${d}`);
      fs.mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 100; f++, files++) fs.writeFileSync(path.join(dir, `file${f}.ts`), `export const value${f} = ${d * 100 + f};\n`);
    }
    return { dir: root, files };
  });
}

/**
 * Issue 42's shape: a git repository of 100,000 committed files in 5,000 folders, a
 * .gitignore and an ignored dist/ of 20,000 more (a build's output). The plain 100k folder
 * has none of these, and missed that they made the folder watch take 27 s.
 */
export function ensureRepo100k(dataDir: string, regenerate: boolean): Promise<{ dir: string; files: number; ignoredFiles: number }> {
  return cached(dataDir, 'repo-100k', regenerate, (root) => {
    let files = 0;
    let ignoredFiles = 0;
    for (let d = 0; d < 5000; d++) {
      const dir = path.join(root, `pkg${Math.floor(d / 100)}`, `mod${d}`);
      fs.mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 20; f++, files++) fs.writeFileSync(path.join(dir, `file${f}.ts`), `export const value${f} = ${d * 20 + f};\n`);
      if (d % 5 !== 0) continue;
      const out = path.join(root, 'dist', `chunk${Math.floor(d / 250)}`, `part${d}`);
      fs.mkdirSync(out, { recursive: true });
      for (let f = 0; f < 20; f++, ignoredFiles++) fs.writeFileSync(path.join(out, `out${f}.js`), `console.log(${f});\n`);
    }
    fs.writeFileSync(path.join(root, '.gitignore'), 'dist/\n');
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: root, stdio: 'ignore' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'the 100k repository');
    return { dir: root, files, ignoredFiles };
  });
}

export const MEMORY_COUNTS = { '1k': 1_000, '20k': 20_000, '100k': 100_000 } as const;
export type MemoryCount = keyof typeof MEMORY_COUNTS;

/** In one memory out of 100, its case varying: a search with many hits (100 at 10k memories). */
export const MEMORY_SEARCH = { planted: 'Invoice Rounding', query: 'invoice rounding' } as const;

export interface MemoriesData {
  file: string;
  memories: number;
  bytes: number;
}

/**
 * A Deepdesk database whose /memories/ holds `count` Markdown notes of 200 B–2 KB in a few
 * hundred topic folders (a fifth at the top), written by threads and by the person.
 */
export function ensureMemories(dataDir: string, count: MemoryCount, regenerate: boolean): Promise<MemoriesData> {
  return cached(dataDir, `memories-${count}.sqlite`, regenerate, async (file) => {
    for (const suffix of ['-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
    const db = openDatabase(file);
    db.pragma('synchronous = OFF');
    const rng = makeRng(17);
    const n = MEMORY_COUNTS[count];
    let bytes = 0;
    try {
      const authors = ['user', ...Array.from({ length: 20 }, (_, i) => `thread-${i}`)];
      const stores = new Map(authors.map((a) => [a, new StoreBackend({ db, namespace: MEMORIES_NAMESPACE, author: a })]));
      for (let start = 0; start < n; start += 5_000) {
        const batch = [];
        for (let i = start; i < Math.min(n, start + 5_000); i++) {
          const folder = rng() < 0.2 ? '' : `${word(rng)}-${Math.floor(rng() * 300)}/`;
          let text = `# ${sentence(rng, 3, 6)}\n\n${generateText(rng, 'md', 200 + Math.floor(rng() * 1800))}`;
          if (i % 100 === 42) text += `\n${i % 200 === 42 ? MEMORY_SEARCH.planted : MEMORY_SEARCH.planted.toUpperCase()} happens per line.\n`;
          bytes += Buffer.byteLength(text);
          batch.push({ path: `/${folder}${word(rng)}-${word(rng)}-${i}.md`, content: new TextEncoder().encode(text) });
        }
        const failed = (await stores.get(pick(rng, authors))!.uploadFiles(batch)).find((r) => r.error !== undefined);
        if (failed) throw new Error(`generating memories: ${failed.path}: ${failed.error}`);
      }
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
    return { file, memories: n, bytes };
  });
}

export function ensureHuge(dataDir: string, regenerate: boolean): Promise<HugeData> {
  return cached(dataDir, 'huge.log', regenerate, buildHuge);
}

export function ensureEditFile(dataDir: string, regenerate: boolean): Promise<EditData> {
  return cached(dataDir, 'edit-50mb.ts', regenerate, buildEditFile);
}

// ---------------------------------------------------------------------------------------

interface Writer {
  file(rel: string, content: string | Buffer, visible: boolean): void;
  files: number;
  bytes: number;
  visibleFiles: number;
}

function makeWriter(root: string): Writer {
  const made = new Set<string>();
  const w: Writer = {
    files: 0,
    bytes: 0,
    visibleFiles: 0,
    file(rel, content, visible) {
      const full = path.join(root, rel);
      const dir = path.dirname(full);
      if (!made.has(dir)) {
        fs.mkdirSync(dir, { recursive: true });
        made.add(dir);
      }
      fs.writeFileSync(full, content);
      w.files++;
      w.bytes += typeof content === 'string' ? Buffer.byteLength(content) : content.length;
      if (visible) w.visibleFiles++;
    },
  };
  return w;
}

/** A source file of about `size` bytes, the rare pattern planted when `plant` is set. */
function sourceFile(rng: Rng, kind: TextKind, size: number, plant: boolean): string {
  const text = generateText(rng, kind, size);
  if (!plant) return text;
  const lines = text.split('\n');
  const at = Math.floor(rng() * (lines.length - 1));
  lines.splice(at, 0, `  const loader = ${GREP_PATTERNS.rare}(options); // migrate callers away from ${GREP_PATTERNS.rare}`);
  return lines.join('\n');
}

/** Mostly 1–6 KB, now and then much larger, as in a real repository. */
function fileSize(rng: Rng): number {
  const r = rng();
  if (r < 0.01) return 10_000 + Math.floor(rng() * 30_000);
  return 600 + Math.floor(rng() * rng() * 4_800);
}

function binary(rng: Rng, size: number): Buffer {
  const buf = Buffer.alloc(size);
  for (let i = 0; i < size; i++) buf[i] = rng() < 0.1 ? 0 : Math.floor(rng() * 256);
  buf.write('\x89PNG\r\n\x1a\n', 0, 'latin1');
  return buf;
}

const PACKAGES = 26;
const SRC_PER_PACKAGE = 440;
const TESTS_PER_PACKAGE = 80;

function buildTree(root: string): TreeData {
  const rng = makeRng(20_000);
  const w = makeWriter(root);
  // The rare pattern lands in ~9 visible files (and some ignored ones, which must not count).
  const plantEvery = 1_400;
  let counter = 0;
  const plant = () => ++counter % plantEvery === 0;

  w.file('.gitignore', 'node_modules/\ndist/\ncoverage/\n*.log\n.cache/\n', true);
  w.file('README.md', generateText(rng, 'md', 6_000), true);
  w.file('package.json', JSON.stringify({ name: 'bench-monorepo', private: true, workspaces: ['packages/*'] }, null, 2) + '\n', true);
  for (let i = 0; i < 6; i++) w.file(`.github/workflows/${word(rng)}-${i}.yml`, generateText(rng, 'yml', 1_200), true);

  for (let p = 0; p < PACKAGES; p++) {
    const pkg = `packages/pkg-${word(rng)}-${p}`;
    w.file(`${pkg}/package.json`, JSON.stringify({ name: `@bench/${p}`, version: '1.0.0', main: 'dist/index.js' }, null, 2) + '\n', true);
    w.file(`${pkg}/tsconfig.json`, JSON.stringify({ extends: '../../tsconfig.base.json', include: ['src'] }, null, 2) + '\n', true);
    w.file(`${pkg}/README.md`, generateText(rng, 'md', 3_000), true);
    const areas = Array.from({ length: 6 }, () => word(rng));
    for (let f = 0; f < SRC_PER_PACKAGE; f++) {
      const area = areas[f % areas.length]!;
      const depth = Math.floor(rng() * 3);
      const sub = Array.from({ length: depth }, () => pick(rng, ['core', 'util', 'internal', 'api', 'model', 'view'])).join('/');
      const kind: TextKind = rng() < 0.06 ? 'css' : rng() < 0.05 ? 'json' : 'ts';
      const ext = kind === 'ts' ? (rng() < 0.2 ? 'tsx' : 'ts') : kind;
      const rel = `${pkg}/src/${area}${sub ? '/' + sub : ''}/${word(rng)}-${word(rng)}-${f}.${ext}`;
      w.file(rel, sourceFile(rng, kind, fileSize(rng), kind === 'ts' && plant()), true);
    }
    for (let f = 0; f < TESTS_PER_PACKAGE; f++) w.file(`${pkg}/test/${word(rng)}-${f}.test.ts`, sourceFile(rng, 'ts', fileSize(rng), false), true);
    if (p % 4 === 0) {
      // A nested .gitignore with a generated folder under it.
      w.file(`${pkg}/.gitignore`, 'generated/\n', true);
      for (let f = 0; f < 60; f++) w.file(`${pkg}/generated/${word(rng)}-${f}.ts`, sourceFile(rng, 'ts', fileSize(rng), f === 0), false);
    }
    for (let f = 0; f < 4; f++) w.file(`${pkg}/assets/${word(rng)}-${f}.png`, binary(rng, 4_000 + Math.floor(rng() * 12_000)), true);
  }
  for (let f = 0; f < 400; f++) w.file(`docs/${word(rng)}/${word(rng)}-${f}.md`, generateText(rng, 'md', fileSize(rng)), true);
  for (let f = 0; f < 120; f++) w.file(`scripts/${word(rng)}-${f}.py`, generateText(rng, 'py', fileSize(rng)), true);
  // Over grep's 10 MB limit: skipped by grep, still listed by glob.
  w.file('fixtures/large-dataset.json', generateText(rng, 'json', 11 * 1024 * 1024), true);

  // Ignored by .gitignore: dependencies, build output, coverage, logs.
  for (let d = 0; d < 150; d++) {
    const dep = `node_modules/${word(rng)}-${word(rng)}-${d}`;
    w.file(`${dep}/package.json`, JSON.stringify({ name: dep, version: '2.0.0' }) + '\n', false);
    for (let f = 0; f < 19; f++) w.file(`${dep}/lib/${word(rng)}-${f}.js`, sourceFile(rng, 'ts', fileSize(rng), d % 50 === 0 && f === 0), false);
  }
  for (let f = 0; f < 1_400; f++) w.file(`dist/${word(rng)}/${word(rng)}-${f}.js`, sourceFile(rng, 'ts', fileSize(rng), false), false);
  for (let f = 0; f < 100; f++) w.file(`coverage/${word(rng)}-${f}.json`, generateText(rng, 'json', 2_000), false);
  for (let f = 0; f < 20; f++) w.file(`logs/${word(rng)}-${f}.log`, generateText(rng, 'md', 4_000), false);

  // A .git folder: always skipped by grep and glob.
  w.file('.git/HEAD', 'ref: refs/heads/main\n', false);
  w.file('.git/config', '[core]\n\trepositoryformatversion = 0\n\tbare = false\n', false);
  w.file('.git/refs/heads/main', 'a'.repeat(40) + '\n', false);
  w.file('.git/index', binary(rng, 600_000), false);
  for (let f = 0; f < 900; f++) {
    const hex = Math.floor(rng() * 0xffffffff).toString(16).padStart(8, '0');
    w.file(`.git/objects/${hex.slice(0, 2)}/${hex.slice(2)}${f.toString(16)}`, binary(rng, 500 + Math.floor(rng() * 3_000)), false);
  }
  return { dir: root, files: w.files, bytes: w.bytes, visibleFiles: w.visibleFiles };
}

/** 1 GB of ~100-byte log lines, written in 8 MB blocks. */
function buildHuge(file: string): HugeData {
  const target = 1024 * 1024 * 1024;
  const fd = fs.openSync(file, 'w');
  const levels = ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'];
  const routes = ['/api/v1/items', '/api/v1/users', '/api/v2/search', '/health', '/api/v1/orders', '/static/app.js'];
  let written = 0;
  let lines = 0;
  let t = Date.UTC(2024, 4, 1);
  try {
    while (written < target) {
      const parts: string[] = [];
      let blockBytes = 0;
      while (blockBytes < 8 * 1024 * 1024 && written + blockBytes < target) {
        t += 7;
        const line = `${new Date(t).toISOString()} ${levels[lines % 6]} [worker-${lines % 16}] request ${lines} handled in ${(lines * 7919) % 997} ms path=${routes[lines % 6]}/${(lines * 31) % 100_000}\n`;
        parts.push(line);
        blockBytes += line.length;
        lines++;
      }
      const block = Buffer.from(parts.join(''), 'latin1');
      fs.writeSync(fd, block);
      written += block.length;
    }
  } finally {
    fs.closeSync(fd);
  }
  return { file, bytes: written, lines };
}

function buildEditFile(file: string): EditData {
  const rng = makeRng(50);
  const half = generateText(rng, 'ts', 25 * 1024 * 1024);
  const rest = generateText(rng, 'ts', 25 * 1024 * 1024);
  const content = `${half}export const marker = '${EDIT_MARKER}';\n${rest}`;
  fs.writeFileSync(file, content);
  return { file, bytes: Buffer.byteLength(content) };
}
