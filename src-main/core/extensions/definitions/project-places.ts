// The places of a kind of Markdown definitions (commands, subagents) for the person, the
// folder and the installed plugins, and the folder's ones as trust entries (SPEC §9).

import { join, relative, sep } from 'node:path';
import { visibleLine } from '../../text/visible-line';
import type { TrustEntry, TrustEntryKind } from '../../config/trust-entry';
import { readMarkdownPlaces, type DefinitionPlace, type MarkdownCache, type MarkdownDefinition, type MarkdownRead } from './markdown-files';

export interface DefinitionPlaces {
  dataDir: string;
  home: string;
  /** The folder (real path); its places load only through isTrusted. */
  folder?: string;
  /** Installed, enabled plugins' folders of this kind. */
  plugins?: readonly DefinitionPlace[];
}

/** A kind's places: `<data-dir>/<dir>`, `~/.claude/<dir>`, the folder's, and the plugins'. */
export function definitionPlaces(dir: 'commands' | 'agents', projectPlaces: readonly string[], options: DefinitionPlaces): { person: DefinitionPlace[]; project: DefinitionPlace[]; plugins: DefinitionPlace[] } {
  const folder = options.folder;
  return {
    person: [join(options.dataDir, dir), join(options.home, '.claude', dir)].map((d) => ({ dir: d, source: 'user' as const })),
    project: folder === undefined ? [] : projectPlaces.map((rel) => ({ dir: join(folder, rel), source: 'project' as const })),
    plugins: [...(options.plugins ?? [])],
  };
}

/** The trust key of a folder's definition: its file relative to the folder, e.g. `command:.claude/commands/review.md`. */
export function definitionTrustKey(kind: TrustEntryKind, folder: string, file: string): string {
  return `${kind}:${relative(folder, file).split(sep).join('/')}`;
}

/** The folder's definitions that load once trusted, split from those not (yet) trusted. */
export function readTrusted(
  kind: TrustEntryKind,
  places: ReturnType<typeof definitionPlaces>,
  options: { folder?: string; isTrusted(entry: { key: string; digest: string }): boolean; recursive: boolean },
  cache?: MarkdownCache,
): { person: MarkdownRead; project: MarkdownDefinition[]; untrusted: MarkdownDefinition[]; problems: string[] } {
  const person = readMarkdownPlaces([...places.plugins, ...places.person], { recursive: options.recursive }, cache);
  const project = readMarkdownPlaces(places.project, { recursive: options.recursive }, cache);
  const folder = options.folder;
  const trusted = folder === undefined ? [] : project.found.filter((d) => options.isTrusted({ key: definitionTrustKey(kind, folder, d.file), digest: d.digest }));
  return { person, project: trusted, untrusted: project.found.filter((d) => !trusted.includes(d)), problems: [...person.problems, ...project.problems] };
}

/** The folder's definitions of a kind as the trust question lists them: `LABEL: .claude/commands/x.md`. */
export function definitionTrustEntries(kind: TrustEntryKind, folder: string, projectPlaces: readonly string[], label: (d: MarkdownDefinition) => string | { problem: string }, recursive: boolean): { entries: TrustEntry[]; problems: string[] } {
  const read = readMarkdownPlaces(projectPlaces.map((rel) => ({ dir: join(folder, rel), source: 'project' as const })), { recursive });
  const entries: TrustEntry[] = [];
  const problems = [...read.problems];
  for (const definition of read.found) {
    const shown = label(definition);
    if (typeof shown !== 'string') {
      problems.push(`${definition.file}: ${shown.problem}`);
      continue;
    }
    const rel = relative(folder, definition.file).split(sep).join('/');
    entries.push({ kind, key: definitionTrustKey(kind, folder, definition.file), file: definition.file, digest: definition.digest, label: visibleLine(`${shown}: ${rel}`) });
  }
  return { entries, problems };
}

/**
 * A kind's definitions that load (the folder's trusted ones first: they win on a name, then the
 * person's and the plugins'), the folder's not trusted, and one line for each file its author
 * got wrong.
 */
export function discoverDefinitions<T extends { name: string }>(
  kind: 'command' | 'agent',
  places: ReturnType<typeof definitionPlaces>,
  options: { folder?: string; isTrusted(entry: { key: string; digest: string }): boolean; recursive: boolean },
  check: (definition: MarkdownDefinition) => T | { problem: string },
  cache?: MarkdownCache,
): { found: T[]; untrusted: T[]; problems: string[] } {
  const read = readTrusted(kind, places, options, cache);
  const problems = [...read.problems];
  const checked = (list: readonly MarkdownDefinition[]): T[] =>
    list.flatMap((d) => {
      const value = check(d);
      if ('problem' in value) {
        problems.push(`${d.file}: ${value.problem}`);
        return [];
      }
      return [value];
    });
  const found: T[] = [];
  for (const value of [...checked(read.project), ...checked(read.person.found)]) if (!found.some((f) => f.name === value.name)) found.push(value);
  return { found, untrusted: checked(read.untrusted), problems: [...new Set(problems)] };
}
