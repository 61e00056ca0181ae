// What a project has, for the stale check (SPEC §25 "Stale"): its folders' entries, what git
// ignores, its package.json / Makefile / justfile scripts, its branches and its dependencies
// (package.json, pyproject.toml, go.mod). Each answer is read once and kept: one probe serves
// one pass over every memory of a project, so hundreds of memories cost one read of each file.
// An answer of null means the project cannot say (no package.json for an npm script, not a git
// repository for a branch, a Makefile that includes what we do not read): nothing is flagged then.

import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Yaml from 'yaml';
import { compileGitignore, type GitignoreRules } from '../backends/filesystem/fs-gitignore';
import { isObject } from '../config/mcp-config';
import { HEAVY_FOLDERS } from '../fs/heavy-folders';
import { isPathInside } from '../fs/path-inside';
import { gitEnv, runGit } from '../git/run-git';
import type { ScriptRunner } from './named-things';

export interface ProjectProbe {
  /** A project folder's entries (`''` is the root): name → whether it is a folder; null when there is no such folder. */
  entries(folder: string): Promise<ReadonlyMap<string, boolean> | null>;
  /** Whether git ignores the project-relative path or a folder above it (so it may just not be built yet). */
  ignored(path: string, isDir: boolean): Promise<boolean>;
  hasScript(runner: ScriptRunner, name: string): Promise<boolean | null>;
  hasBranch(name: string): Promise<boolean | null>;
  hasDependency(name: string, called: 'dependency' | 'package'): Promise<boolean | null>;
}

/** What a probe reads of a project; paths are project-relative with `/`. */
export interface ProjectReader {
  list(folder: string): Promise<ReadonlyMap<string, boolean> | null>;
  /** A file's text; null when it is not there or cannot be read. */
  readText(file: string): Promise<string | null>;
  /** Full ref names (`refs/heads/main`, `refs/remotes/origin/x`); null when the project is not a git repository. */
  refs(): Promise<readonly string[] | null>;
}

/** A probe of a local project folder. */
export function projectProbe(folder: string, env: NodeJS.ProcessEnv = process.env): ProjectProbe {
  return probeFrom(localReader(folder, env));
}

const MAX_FILE_BYTES = 2 * 1024 * 1024;

/** Opened without waiting: a fifo named `package.json` must not hold the pass up. */
const READ_NOW = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

export function localReader(root: string, env: NodeJS.ProcessEnv = process.env): ProjectReader {
  /** The absolute path of a project-relative one; null outside the project (a Makefile's `include ../x`). */
  const abs = (p: string) => {
    const at = path.resolve(root, ...p.split('/').filter(Boolean));
    return isPathInside(root, at) ? at : null;
  };
  return {
    async list(folder) {
      const at = abs(folder);
      if (at === null) return null;
      try {
        const dirents = await fsp.readdir(at, { withFileTypes: true });
        const out = new Map<string, boolean>();
        for (const d of dirents) {
          const isDir = d.isSymbolicLink() ? await fsp.stat(path.join(at, d.name)).then((s) => s.isDirectory(), () => false) : d.isDirectory();
          out.set(d.name, isDir);
        }
        return out;
      } catch {
        return null;
      }
    },
    async readText(file) {
      const at = abs(file);
      if (at === null) return null;
      try {
        const handle = await fsp.open(at, READ_NOW);
        try {
          const stat = await handle.stat();
          if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return null;
          return await handle.readFile('utf8');
        } finally {
          await handle.close();
        }
      } catch {
        return null;
      }
    },
    async refs() {
      const r = await runGit(['for-each-ref', '--format=%(refname)', 'refs/heads', 'refs/remotes'], { cwd: root, env: gitEnv(env), timeoutMs: 30_000 });
      if (r.code !== 0) return null;
      return r.stdout.split('\n').filter(Boolean);
    },
  };
}

/** A probe over any reader, keeping every answer. */
export function probeFrom(reader: ProjectReader): ProjectProbe {
  const once = <T>(load: () => Promise<T>): (() => Promise<T>) => {
    let kept: Promise<T> | undefined;
    return () => (kept ??= load());
  };
  const keyed = <T>(load: (key: string) => Promise<T>): ((key: string) => Promise<T>) => {
    const kept = new Map<string, Promise<T>>();
    return (key) => {
      let p = kept.get(key);
      if (p === undefined) kept.set(key, (p = load(key)));
      return p;
    };
  };
  const entries = keyed((folder) => reader.list(folder));
  const gitignore = keyed(async (folder): Promise<GitignoreRules | null> => {
    const text = await reader.readText(folder === '' ? '.gitignore' : `${folder}/.gitignore`);
    return text === null ? null : compileGitignore(folder, text);
  });
  const npm = once(() => npmProject({ ...reader, list: entries }));
  const make = once(() => makeTargets(reader));
  const just = once(() => justRecipes(reader));
  const branches = once(async () => {
    const refs = await reader.refs();
    if (refs === null || refs.length === 0) return null;
    const names = new Set<string>();
    for (const ref of refs) {
      if (ref.startsWith('refs/heads/')) names.add(ref.slice('refs/heads/'.length));
      else if (ref.startsWith('refs/remotes/')) {
        const remote = ref.slice('refs/remotes/'.length);
        names.add(remote);
        names.add(remote.slice(remote.indexOf('/') + 1));
      }
    }
    return names;
  });
  const python = once(() => pythonProject(reader));
  const go = once(() => goProject(reader));

  return {
    entries,
    async ignored(target, isDir) {
      const segments = target.split('/').filter(Boolean);
      // Installed or made, never the project's own: their absence says nothing.
      if (segments.some((s) => HEAVY_FOLDERS.has(s) || s === '.git')) return true;
      // Each folder above the path (and the path) against the .gitignore files above it, the deepest deciding.
      for (let i = 1; i <= segments.length; i++) {
        const prefix = segments.slice(0, i);
        const dir = i < segments.length || isDir;
        let verdict: boolean | null = null;
        for (let j = 0; j < i && verdict === null; j++) {
          const folder = segments.slice(0, i - 1 - j).join('/');
          const rules = await gitignore(folder);
          verdict = rules?.check(prefix.slice(i - 1 - j).join('/'), dir) ?? null;
        }
        if (verdict === true) return true;
      }
      return false;
    },
    async hasScript(runner, name) {
      const known = await (runner === 'npm' ? npm().then((p) => p?.scripts ?? null) : runner === 'make' ? make() : just());
      if (known === null) return null;
      if (known.names.has(name) || known.patterns.some((re) => re.test(name))) return true;
      return known.open ? null : false;
    },
    async hasBranch(name) {
      const names = await branches();
      return names === null ? null : names.has(name);
    },
    async hasDependency(name, called) {
      const [n, py, g] = await Promise.all([npm(), python(), go()]);
      // A Go package named without a path is one of the project's own folders: judged only by package.json or pyproject.toml beside go.mod.
      if (g !== null && called === 'package' && !name.includes('/')) {
        for (const folder of GO_PACKAGE_FOLDERS) if ((await entries(folder))?.get(name) === true) return true;
        if (n === null && py === null) return null;
      }
      const goLike = /^[\w-]+(\.[\w-]+)+\//.test(name);
      const judges: Array<boolean> = [];
      if (goLike) {
        if (g !== null) judges.push([...g].some((m) => name === m || name.startsWith(`${m}/`)));
      } else {
        if (n !== null) judges.push(n.dependencies.has(name));
        if (py !== null && !name.startsWith('@')) judges.push(py.has(pythonName(name)));
      }
      if (judges.length === 0) return null;
      return judges.some(Boolean);
    },
  };
}

/** Where a Go project keeps its packages. */
const GO_PACKAGE_FOLDERS = ['', 'internal', 'pkg', 'cmd'];


interface Names {
  names: Set<string>;
  /** Pattern rules (`%.o`) a name may match. */
  patterns: RegExp[];
  /** Some names could not be read (an include, a `$(VAR)` target, a workspace glob): an unknown name is not judged. */
  open: boolean;
}

// ---- package.json and its workspaces ----

interface NpmProject {
  scripts: Names;
  /** Every dependency field of the root and its workspaces, and their own names. */
  dependencies: Set<string>;
}

async function npmProject(reader: ProjectReader): Promise<NpmProject | null> {
  const root = parseJson(await reader.readText('package.json'));
  if (root === null) return null;
  const project: NpmProject = { scripts: { names: new Set(), patterns: [], open: false }, dependencies: new Set() };
  const take = (pkg: Record<string, unknown>) => {
    if (typeof pkg.name === 'string') project.dependencies.add(pkg.name);
    if (isObject(pkg.scripts)) for (const s of Object.keys(pkg.scripts)) project.scripts.names.add(s);
    for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
      const deps = pkg[field];
      if (isObject(deps)) for (const d of Object.keys(deps)) project.dependencies.add(d);
    }
    for (const field of ['bundledDependencies', 'bundleDependencies']) {
      const deps = pkg[field];
      if (Array.isArray(deps)) for (const d of deps) if (typeof d === 'string') project.dependencies.add(d);
    }
  };
  take(root);
  const patterns = [...workspacePatterns(root), ...pnpmWorkspaces(await reader.readText('pnpm-workspace.yaml'))];
  for (const pattern of patterns) {
    const folders = await workspaceFolders(reader, pattern);
    if (folders === null) {
      project.scripts.open = true;
      continue;
    }
    for (const folder of folders) {
      const pkg = parseJson(await reader.readText(`${folder}/package.json`));
      if (pkg !== null) take(pkg);
    }
  }
  return project;
}

function workspacePatterns(pkg: Record<string, unknown>): string[] {
  const ws = Array.isArray(pkg.workspaces) ? pkg.workspaces : isObject(pkg.workspaces) && Array.isArray(pkg.workspaces.packages) ? pkg.workspaces.packages : [];
  return ws.filter((w): w is string => typeof w === 'string');
}

function pnpmWorkspaces(text: string | null): string[] {
  if (text === null) return [];
  try {
    // Loaded here, when a pnpm-workspace.yaml is read: a host that never reads one never holds `yaml`.
    const doc: unknown = (createRequire(import.meta.url)('yaml') as typeof Yaml).parse(text);
    return isObject(doc) && Array.isArray(doc.packages) ? doc.packages.filter((w): w is string => typeof w === 'string') : [];
  } catch {
    return [];
  }
}

/** `packages/*` or `tools/cli`; null for a pattern this does not expand (`**`, `!x`, `{a,b}`). */
async function workspaceFolders(reader: ProjectReader, pattern: string): Promise<string[] | null> {
  const clean = pattern.replace(/^\.\//, '').replace(/\/+$/, '');
  if (clean.startsWith('!')) return [];
  if (!/^[\w.@/-]+(\/\*)?$/.test(clean) || clean.split('/').includes('..')) return null;
  if (!clean.endsWith('/*')) return [clean];
  const parent = clean.slice(0, -2);
  const listed = await reader.list(parent);
  return listed === null ? [] : [...listed].filter(([, isDir]) => isDir).map(([name]) => `${parent}/${name}`);
}

// ---- Makefile and justfile ----

async function makeTargets(reader: ProjectReader): Promise<Names | null> {
  let text: string | null = null;
  for (const name of ['GNUmakefile', 'makefile', 'Makefile']) if (text === null) text = await reader.readText(name);
  if (text === null) return null;
  const found: Names = { names: new Set(), patterns: [], open: false };
  const read = async (body: string, depth: number) => {
    for (const line of body.replace(/\\\n/g, ' ').split('\n')) {
      const include = /^\s*-?(?:include|sinclude)\s+(.+)$/.exec(line);
      if (include) {
        for (const file of include[1]!.trim().split(/\s+/)) {
          const inner = /[$*?%]/.test(file) || depth > 3 ? null : await reader.readText(file.replace(/^\.\//, ''));
          if (inner === null) found.open = true;
          else await read(inner, depth + 1);
        }
        continue;
      }
      // `a b: deps`, `a::`, not `A := x` or `A = x` or a recipe line.
      const rule = /^([^\s:#=\t][^:=#]*?)\s*::?(?![=])/.exec(line);
      if (rule === null || line.startsWith('\t')) continue;
      for (const target of rule[1]!.trim().split(/\s+/)) {
        if (target.includes('$')) found.open = true;
        else if (target.includes('%')) found.patterns.push(new RegExp(`^${escapeRe(target).replace('%', '.+')}$`));
        else found.names.add(target);
      }
      if (/^\.PHONY\s*:/.test(line)) for (const t of line.split(':')[1]!.trim().split(/\s+/)) if (t !== '' && !t.includes('$')) found.names.add(t);
    }
  };
  await read(text, 0);
  return found;
}

async function justRecipes(reader: ProjectReader): Promise<Names | null> {
  let text: string | null = null;
  for (const name of ['justfile', 'Justfile', '.justfile']) if (text === null) text = await reader.readText(name);
  if (text === null) return null;
  const found: Names = { names: new Set(), patterns: [], open: false };
  for (const line of text.split('\n')) {
    if (/^(import|mod)\b/.test(line)) found.open = true;
    const alias = /^alias\s+([\w-]+)\s*:=/.exec(line);
    if (alias) found.names.add(alias[1]!);
    const recipe = /^@?([A-Za-z_][\w-]*)(?:\s+[^:=]*)?:(?!=)/.exec(line);
    if (recipe && !/^(set|export|alias)\b/.test(line)) found.names.add(recipe[1]!);
  }
  return found;
}

// ---- pyproject.toml and go.mod ----

/** PEP 503: lowercased, runs of `-`, `_` and `.` as one `-`. */
function pythonName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/**
 * The names in pyproject.toml's PEP 621 dependencies (and optional ones), PEP 735 groups and
 * Poetry's dependency tables, and the project's own name; requirements*.txt beside it too.
 * Read line by line: only the tables that hold names, not the whole of TOML.
 */
async function pythonProject(reader: ProjectReader): Promise<Set<string> | null> {
  const text = await reader.readText('pyproject.toml');
  if (text === null) return null;
  const names = new Set<string>();
  const requirement = (s: string) => {
    const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(s);
    if (m) names.add(pythonName(m[1]!));
  };
  let table = '';
  let inArray = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\s+#.*$/, '');
    const header = /^\s*\[\[?([^\]]+)\]\]?\s*$/.exec(line);
    if (header && !inArray) {
      table = header[1]!.trim().replace(/\s+/g, '').replace(/"/g, '');
      continue;
    }
    const arrayTable = table === 'project' || table === 'project.optional-dependencies' || table === 'dependency-groups';
    if (inArray) {
      for (const s of line.matchAll(/"([^"]*)"|'([^']*)'/g)) requirement(s[1] ?? s[2]!);
      if (line.includes(']')) inArray = false;
      continue;
    }
    const key = /^\s*("?)([A-Za-z0-9][\w.-]*)\1\s*=\s*(.*)$/.exec(line);
    if (key === null) continue;
    const [, , name, value] = key;
    if ((table === 'project' || table === 'tool.poetry') && name === 'name') requirement(value!.replace(/["']/g, ''));
    if (arrayTable && (table !== 'project' || name === 'dependencies')) {
      for (const s of value!.matchAll(/"([^"]*)"|'([^']*)'/g)) requirement(s[1] ?? s[2]!);
      inArray = value!.trimStart().startsWith('[') && !value!.includes(']');
    }
    if (/^tool\.poetry\.(dependencies|dev-dependencies|group\.[^.]+\.dependencies)$/.test(table)) names.add(pythonName(name!));
  }
  for (const file of ['requirements.txt', 'requirements-dev.txt']) {
    const req = await reader.readText(file);
    if (req !== null) for (const line of req.split('\n')) if (!/^\s*(-|#)/.test(line)) requirement(line);
  }
  return names;
}

/** The module paths go.mod requires, and its own. */
async function goProject(reader: ProjectReader): Promise<Set<string> | null> {
  const text = await reader.readText('go.mod');
  if (text === null) return null;
  const modules = new Set<string>();
  let inRequire = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (inRequire) {
      if (line === ')') inRequire = false;
      else if (line !== '') modules.add(line.split(/\s+/)[0]!);
      continue;
    }
    const module = /^module\s+(\S+)/.exec(line);
    if (module) modules.add(module[1]!.replace(/"/g, ''));
    if (/^require\s*\($/.test(line)) inRequire = true;
    const single = /^require\s+([^\s(]+)/.exec(line);
    if (single) modules.add(single[1]!);
  }
  return modules;
}

function parseJson(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

function escapeRe(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
