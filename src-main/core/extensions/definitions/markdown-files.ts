// Markdown files with YAML front matter in Claude Code's layout (SPEC §11): custom commands
// (`commands/**/*.md`) and custom subagents (`agents/*.md`). One reader for both: the places
// are walked a few levels deep with a bounded number of files, each file read only while its
// stat is unchanged, front matter read with the skills' bounded, lenient reader.

import { createHash } from 'node:crypto';
import { readdirSync, statSync, type Dirent } from 'node:fs';
import { readConfigFile } from '../../config/read-config-file';
import { join, relative, sep } from 'node:path';
import { parseFrontMatter, splitFrontMatter } from '../skills/front-matter';

export const MAX_DEFINITION_BYTES = 256 * 1024;
const MAX_FILES_PER_PLACE = 500;
const MAX_DEPTH = 4;

/** Whose a definition is: the person's, the folder's (after trust), or an installed plugin's. */
export type DefinitionSource = 'user' | 'project' | 'plugin';

export interface DefinitionPlace {
  dir: string;
  source: DefinitionSource;
  /** A plugin's name: its definitions are named `plugin:name`. */
  plugin?: string;
}

export interface MarkdownDefinition {
  /** The path under its place without `.md`, `/`-separated: `frontend/component`. */
  relName: string;
  file: string;
  place: DefinitionPlace;
  /** sha256 of the file's bytes: what trust is given to. */
  digest: string;
  /** The front matter's fields (none when it has none). */
  fields: Record<string, unknown>;
  body: string;
}

export interface MarkdownRead {
  found: MarkdownDefinition[];
  /** `FILE: PROBLEM` */
  problems: string[];
}

interface Cached {
  stamp: string;
  result: { definition: Omit<MarkdownDefinition, 'place' | 'relName'> } | { problem: string };
}

/** Parsed files by path, reused while their stat is unchanged. */
export type MarkdownCache = Map<string, Cached>;

/** The `.md` files of these places (each walked `recursive` levels deep or only at its top). */
export function readMarkdownPlaces(places: readonly DefinitionPlace[], options: { recursive: boolean }, cache: MarkdownCache = new Map()): MarkdownRead {
  const found: MarkdownDefinition[] = [];
  const problems: string[] = [];
  for (const place of places) {
    for (const file of markdownFiles(place.dir, options.recursive ? MAX_DEPTH : 1, problems)) {
      const read = readDefinition(file, cache);
      if ('problem' in read) {
        problems.push(`${file}: ${read.problem}`);
        continue;
      }
      const relName = relative(place.dir, file).split(sep).join('/').replace(/\.md$/i, '');
      found.push({ ...read.definition, file, relName, place });
    }
  }
  return { found, problems };
}

function markdownFiles(dir: string, depth: number, problems: string[]): string[] {
  const files: string[] = [];
  const walk = (at: string, left: number): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(at, { withFileTypes: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') problems.push(`${at}: could not be read (${code ?? String(err)})`);
      return;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (files.length >= MAX_FILES_PER_PLACE) {
        problems.push(`${dir}: holds more than ${MAX_FILES_PER_PLACE} files; the rest are not read`);
        return;
      }
      const path = join(at, entry.name);
      // A linked folder is not followed (it could loop); a linked file is read as what it leads to.
      if (entry.isDirectory()) {
        if (left > 1) walk(path, left - 1);
      } else if (/\.md$/i.test(entry.name) && (entry.isFile() || entry.isSymbolicLink())) files.push(path);
    }
  };
  walk(dir, depth);
  return files;
}

function readDefinition(file: string, cache: MarkdownCache): Cached['result'] {
  let stamp: string;
  try {
    const st = statSync(file, { bigint: true });
    if (!st.isFile()) return { problem: 'is not a regular file' };
    if (st.size > MAX_DEFINITION_BYTES) return { problem: `is larger than ${MAX_DEFINITION_BYTES / 1024} KB; it is not read` };
    stamp = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch (err) {
    return { problem: `could not be read (${(err as NodeJS.ErrnoException).code ?? String(err)})` };
  }
  const hit = cache.get(file);
  if (hit && hit.stamp === stamp) return hit.result;
  // Read as every configuration file is: what is opened is checked again (it may have changed since the stat).
  const read = readConfigFile(file, MAX_DEFINITION_BYTES);
  if (!read.ok) return { problem: read.code === 'EFBIG' ? `is larger than ${MAX_DEFINITION_BYTES / 1024} KB; it is not read` : read.message };
  const result = parseDefinition(read.bytes);
  cache.set(file, { stamp, result });
  return result;
}

function parseDefinition(bytes: Buffer): Cached['result'] {
  const text = bytes.toString('utf8');
  const digest = createHash('sha256').update(bytes).digest('hex');
  const split = splitFrontMatter(text);
  if (split === null) return { definition: { file: '', digest, fields: {}, body: text.replace(/^\uFEFF/, '') } };
  const parsed = parseFrontMatter(split.yaml);
  if ('problem' in parsed) return parsed;
  const data = parsed.data ?? {};
  if (typeof data !== 'object' || Array.isArray(data)) return { problem: 'front matter is not a YAML mapping of fields' };
  return { definition: { file: '', digest, fields: data as Record<string, unknown>, body: text.slice(split.bodyStart) } };
}
