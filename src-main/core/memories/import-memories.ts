// Bringing in another agent's memories (SPEC §25 Import): Claude Code's auto memory of the
// project and Codex's memories, one memory per file, never over a memory already there.

import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join, posix } from 'node:path';
import { decodeUtf8, looksBinary } from '../backends/text';

export type ImportTool = 'claude-code' | 'codex';

export interface PlannedImport {
  scope: 'project' | 'global';
  /** path inside the scope, e.g. /MEMORY.md */
  path: string;
  content: string;
  /** where it came from */
  source: string;
}

const TOOL_NAMES: Record<ImportTool, string> = { 'claude-code': 'Claude Code', codex: 'Codex' };
const TEXT_EXTENSIONS = new Set(['.md', '.markdown', '.mdx', '.txt', '.text']);
const MAX_BYTES = 1024 * 1024;

/** Claude Code's project folder name: every character other than A–Z, a–z, 0–9 becomes '-'. */
export function claudeProjectName(projectDir: string): string {
  // Per UTF-16 unit, as Claude Code's own replace does: a character outside the BMP is two '-'.
  return projectDir.replace(/[^A-Za-z0-9]/g, '-');
}

/** The default folder a tool's memories are read from. */
export function importSourceDir(tool: ImportTool, options: { home: string; projectDir: string }): string {
  return tool === 'claude-code'
    ? join(options.home, '.claude', 'projects', claudeProjectName(options.projectDir), 'memory')
    : join(options.home, '.codex', 'memories');
}

/** What an import would bring: one memory per file (Markdown and text files, recursively; skip hidden files, binaries, files > 1 MB), Claude Code's into the project scope, Codex's into global. */
export async function planImport(tool: ImportTool, options: { home: string; projectDir: string; from?: string }): Promise<PlannedImport[]> {
  const dir = options.from ?? importSourceDir(tool, options);
  const isDir = await stat(dir).then((s) => s.isDirectory(), () => false);
  if (!isDir) throw new Error(`no ${TOOL_NAMES[tool]} memories at ${dir}`);
  const scope = tool === 'claude-code' ? 'project' : 'global';
  const planned: PlannedImport[] = [];
  for (const rel of await textFilesUnder(dir, [])) {
    const source = join(dir, ...rel);
    const content = await readText(source);
    if (content !== null) planned.push({ scope, path: '/' + rel.join('/'), content, source });
  }
  return planned;
}

/** The Markdown and text files under `dir` (not hidden, not through links), as path segments, in name order. */
async function textFilesUnder(dir: string, prefix: string[]): Promise<string[][]> {
  const entries = await readdir(join(dir, ...prefix), { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const found: string[][] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const rel = [...prefix, entry.name];
    if (entry.isDirectory()) found.push(...(await textFilesUnder(dir, rel)));
    else if (entry.isFile() && TEXT_EXTENSIONS.has(extname(entry.name).toLowerCase())) found.push(rel);
  }
  return found;
}

/** The file's text; null when it is over 1 MB, binary or not UTF-8. */
async function readText(file: string): Promise<string | null> {
  if ((await stat(file)).size > MAX_BYTES) return null;
  const bytes = await readFile(file);
  if (bytes.length > MAX_BYTES || looksBinary(bytes)) return null;
  return decodeUtf8(bytes);
}

/** Where each planned memory lands without overwriting: a taken name gets `-imported` before its extension (`x.md` → `x-imported.md`, again `x-imported-2.md`…); `taken(scope, path)` says whether a name is in use. */
export async function placeImports(
  planned: readonly PlannedImport[],
  taken: (scope: 'project' | 'global', path: string) => Promise<boolean>,
): Promise<PlannedImport[]> {
  const claimed = new Set<string>();
  const key = (scope: string, path: string): string => `${scope}\0${path}`;
  // First every import that can keep its own name does, so a renamed one never takes it.
  const keeps: boolean[] = [];
  for (const p of planned) {
    const free = !claimed.has(key(p.scope, p.path)) && !(await taken(p.scope, p.path));
    if (free) claimed.add(key(p.scope, p.path));
    keeps.push(free);
  }
  const placed: PlannedImport[] = [];
  for (const [i, p] of planned.entries()) {
    if (keeps[i]) {
      placed.push(p);
      continue;
    }
    let path = p.path;
    for (let n = 1; claimed.has(key(p.scope, path)) || (await taken(p.scope, path)); n++) path = importedName(p.path, n);
    claimed.add(key(p.scope, path));
    placed.push({ ...p, path });
  }
  return placed;
}

/** `/a/x.md` → `/a/x-imported.md` (n = 1), `/a/x-imported-2.md` (n = 2)… */
function importedName(path: string, n: number): string {
  const dir = posix.dirname(path);
  const base = posix.basename(path);
  const ext = posix.extname(base);
  const stem = base.slice(0, base.length - ext.length);
  return posix.join(dir, `${stem}-imported${n === 1 ? '' : `-${n}`}${ext}`);
}
