// Finding skills (SPEC §11): the person's folders (`<data-dir>/skills/`, `~/.agents/skills/`,
// `~/.claude/skills/`) and, once trusted (§9), the project's (`.deepdesk/skills/`,
// `.agents/skills/`, `.claude/skills/`). Each skill is a folder directly inside one of these
// holding a regular SKILL.md of at most 256 KB; nothing deeper is walked, so a linked folder
// cannot loop. Everything that could not be used is a problem naming the file.
//
// Synchronous on purpose: a scan is a readdir per skills folder and a stat per skill (the
// SKILL.md is read again only when its stat changed, see SkillScanCache), cheap enough to
// run before every model call, so a new or edited skill is picked up without a restart.

import { isPathBelow } from '../../fs/path-inside';
import { createHash } from 'node:crypto';
import { readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { FolderItem, FolderItems, IsTrusted } from '../../config/kinds/kind';
import { splitByTrust } from '../../config/kinds/kind';
import { FOLDER_CONFIG_PLACES } from '../../config/places';
import { visibleLine } from '../../text/visible-line';
import { readConfigFile, readConfigText } from '../../config/read-config-file';
import { enabledPluginParts } from '../plugins/store';
import { checkSkillHeader, splitFrontMatter, type HeaderCheck } from './front-matter';
import type { Skill, SkillProblem, SkillSource } from './types';
import { SKILLS_MOUNT } from '../../backends/mounts/skills-mount';
import { realOrSelf } from '../../config/entry-files';

export const SKILL_FILE = 'SKILL.md';
export const MAX_SKILL_FILE_BYTES = 256 * 1024;
/** The project's skills folders, relative to the folder, in the order they win on a name clash. */
export const PROJECT_SKILL_DIRS = FOLDER_CONFIG_PLACES.skill;

/** The person's skills folders, in the order they win on a name clash. */
export function userSkillDirs(dataDir: string, home: string): string[] {
  return [join(dataDir, 'skills'), join(home, '.agents', 'skills'), join(home, '.claude', 'skills'), ...enabledPluginParts(dataDir).plugins.flatMap((p) => p.skillsDirs)];
}

/** The trust key of a project skill: its folder relative to the project, e.g. `skill:.claude/skills/pdf`. */
export function projectSkillKey(relDir: string): string {
  return `skill:${relDir}`;
}

export interface DiscoverOptions {
  dataDir: string;
  home: string;
  /** The project folder; without one only the person's skills are found. */
  folder?: string;
  /** Whether a project skill (by trust key and digest) is trusted; untrusted ones do not load. */
  isTrusted: IsTrusted;
  /** Names the person turned off. */
  disabled?: ReadonlySet<string>;
}

export interface SkillDiscovery {
  /** The skills that load, by name (a project skill wins over the person's). */
  skills: Skill[];
  /** The project's valid skills that are not (or no longer) trusted. */
  untrusted: Skill[];
  /** Valid skills the person turned off. */
  off: Skill[];
  /** Skills that could not be used, and folders that could not be read. */
  problems: SkillProblem[];
  /** Skills hidden by another of the same name: said, but not a problem. */
  notes: string[];
}

/** A valid skill folder as found on disk, before trust and name resolution. */
export interface FoundSkill {
  name: string;
  /** The folder as found (`<root>/<name>`), not resolved. */
  path: string;
  dir: string;
  file: string;
  digest: string;
  header: { name: string; description: string; disableModelInvocation: boolean };
}

interface CachedRead {
  stamp: string;
  dir: string;
  file: string;
  digest: string;
  check: HeaderCheck;
}

/** Parsed SKILL.md files by path, reused while their stat is unchanged. */
export type SkillScanCache = Map<string, CachedRead>;

/**
 * How long one scan may spend reading SKILL.md files it has not read before. Each front
 * matter is bounded (front-matter.ts), but a cloned folder may hold thousands of skills: past
 * this, the rest wait for the next scan (which goes on where this one stopped).
 */
export const SCAN_READ_BUDGET_MS = 1_000;

/** When the current scan stops reading new files. */
interface ScanClock {
  readUntil: number;
}

/** The valid skill folders directly inside `root`; the rest are problems. */
export function scanSkillsDir(root: string, problems: SkillProblem[], cache: SkillScanCache = new Map(), clock: ScanClock = newClock()): FoundSkill[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch (err) {
    const code = errorCode(err);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') problems.push({ file: root, message: `could not be read (${code ?? String(err)})` });
    return [];
  }
  const found: FoundSkill[] = [];
  for (const name of names.sort()) {
    if (name.startsWith('.')) continue;
    const path = join(root, name);
    const dirStat = statOrNull(path);
    if (dirStat === null) {
      problems.push({ file: path, message: 'is a link to nothing readable' });
      continue;
    }
    if (!dirStat.isDirectory()) continue;
    const skillFile = join(path, SKILL_FILE);
    const fileStat = statOrNull(skillFile);
    if (fileStat === null) {
      problems.push({ file: path, message: `has no ${SKILL_FILE}` });
      continue;
    }
    if (!fileStat.isFile()) {
      problems.push({ file: skillFile, message: 'is not a regular file' });
      continue;
    }
    if (fileStat.size > MAX_SKILL_FILE_BYTES) {
      problems.push({ file: skillFile, message: `is larger than ${MAX_SKILL_FILE_BYTES / 1024} KB (${Math.ceil(fileStat.size / 1024)} KB)` });
      continue;
    }
    const read = readCached(path, skillFile, name, dirStat, fileStat, cache, clock);
    if (read === 'later') {
      problems.push({ file: skillFile, message: `was not read: reading skills took longer than ${SCAN_READ_BUDGET_MS / 1000} s; it is read on the next look` });
      continue;
    }
    if (read === null) {
      problems.push({ file: skillFile, message: 'could not be read' });
      continue;
    }
    if ('problem' in read.check) {
      problems.push({ file: skillFile, message: read.check.problem });
      continue;
    }
    found.push({ name, path, dir: read.dir, file: read.file, digest: read.digest, header: read.check.header });
  }
  return found;
}

/** The folder's valid skills with their trust entries: keyed by folder (two project folders may hold the same name), digest = sha256 of the SKILL.md. */
function scanProjectSkills(folder: string, problems: SkillProblem[], cache?: SkillScanCache, clock?: ScanClock): FolderItem<FoundSkill>[] {
  return PROJECT_SKILL_DIRS.flatMap((relRoot) =>
    scanSkillsDir(join(folder, relRoot), problems, cache, clock).map((found) => {
      const relDir = `${relRoot}/${found.name}`;
      const label = visibleLine(`Skill ${found.name}: ${relDir}/${SKILL_FILE}`);
      return { entry: { kind: 'skill' as const, key: projectSkillKey(relDir), file: join(found.path, SKILL_FILE), digest: found.digest, label }, value: found };
    }),
  );
}

/** The folder's (real path) own skills, as the trust question lists them and discoverSkills checks them. */
export function projectSkillItems(folder: string): FolderItems<FoundSkill> {
  const problems: SkillProblem[] = [];
  const items = scanProjectSkills(folder, problems);
  return { items, problems: problems.map(skillProblemLine) };
}

/** `FILE: PROBLEM`, as every configuration problem is told. */
export function skillProblemLine(problem: SkillProblem): string {
  return `${problem.file}: ${problem.message}`;
}

export function discoverSkills(options: DiscoverOptions, cache: SkillScanCache = new Map()): SkillDiscovery {
  const clock = newClock();
  const problems: SkillProblem[] = [];
  const notes: string[] = [];
  const byName = new Map<string, Skill>();
  const untrusted: Skill[] = [];
  // The first of a name wins: the project's folders in order, then the person's.
  const take = (skill: Skill): void => {
    const winner = byName.get(skill.name);
    if (winner !== undefined) {
      notes.push(`${skill.file}: skill '${skill.name}' is hidden by ${winner.file}`);
      return;
    }
    byName.set(skill.name, skill);
  };

  const project: Skill[] = [];
  if (options.folder !== undefined) {
    const folder = realOrSelf(options.folder);
    const split = splitByTrust(scanProjectSkills(folder, problems, cache, clock), options.isTrusted);
    const asSkill = (found: FoundSkill): Skill => toSkill(found, 'project', isPathBelow(folder, found.dir) ? `/${toPosix(relative(folder, found.file))}` : mountPath(found.name));
    project.push(...split.trusted.map(asSkill));
    untrusted.push(...split.untrusted.map(asSkill));
  }
  for (const skill of project) take(skill);
  const user: Skill[] = [];
  for (const root of userSkillDirs(options.dataDir, options.home)) {
    for (const found of scanSkillsDir(root, problems, cache, clock)) user.push(toSkill(found, 'user', mountPath(found.name)));
  }
  // The same folder reached twice (e.g. ~/.claude/skills linked to ~/.agents/skills) is one skill.
  const seenDirs = new Set(project.map((s) => s.dir));
  for (const skill of user) {
    if (seenDirs.has(skill.dir)) continue;
    seenDirs.add(skill.dir);
    take(skill);
  }

  const disabled = options.disabled ?? new Set<string>();
  const all = [...byName.values()].sort(byNameOrder);
  untrusted.sort(byNameOrder);
  return {
    skills: all.filter((s) => !disabled.has(s.name)),
    untrusted,
    off: all.filter((s) => disabled.has(s.name)),
    problems,
    notes,
  };
}

/** Keeps the parsed SKILL.md files between scans: call `current()` as often as needed. */
export function createSkillCatalog(options: DiscoverOptions): { current(): SkillDiscovery } {
  const cache: SkillScanCache = new Map();
  return { current: () => discoverSkills(options, cache) };
}

function toSkill(found: FoundSkill, source: SkillSource, virtualPath: string): Skill {
  const file = found.file;
  return {
    name: found.header.name,
    description: found.header.description,
    source,
    file,
    dir: found.dir,
    virtualPath,
    disableModelInvocation: found.header.disableModelInvocation,
    digest: found.digest,
    body: async () => {
      const text = readConfigText(file);
      const split = splitFrontMatter(text);
      return (split === null ? text : text.slice(split.bodyStart)).replace(/^\s*\n/, '');
    },
  };
}

function byNameOrder(a: Skill, b: Skill): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function mountPath(name: string): string {
  return `${SKILLS_MOUNT}${name}/${SKILL_FILE}`;
}

function newClock(): ScanClock {
  return { readUntil: performance.now() + SCAN_READ_BUDGET_MS };
}

function readCached(path: string, skillFile: string, name: string, dirStat: Stats, fileStat: Stats, cache: SkillScanCache, clock: ScanClock): CachedRead | null | 'later' {
  const stamp = `${dirStat.ino}:${fileStat.ino}:${fileStat.size}:${fileStat.mtimeMs}:${fileStat.ctimeMs}`;
  const cached = cache.get(skillFile);
  if (cached?.stamp === stamp) return cached;
  if (performance.now() > clock.readUntil) return 'later';
  try {
    const opened = readConfigFile(skillFile);
    if (!opened.ok) throw new Error(opened.message);
    const bytes = opened.bytes;
    const text = bytes.toString('utf8');
    const read: CachedRead = {
      stamp,
      dir: realpathSync(path),
      file: realpathSync(skillFile),
      digest: createHash('sha256').update(bytes).digest('hex'),
      check: checkSkillHeader(text, name),
    };
    cache.set(skillFile, read);
    return read;
  } catch {
    cache.delete(skillFile);
    return null;
  }
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function toPosix(path: string): string {
  return path.split(sep).join('/');
}

function errorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}
