// The places of a kind of Markdown definitions (commands, subagents) for the person, the
// folder and the installed plugins, and the folder's ones as trust items (SPEC §9).

import { join, relative, sep } from 'node:path';
import { visibleLine } from '../../text/visible-line';
import { splitByTrust, type FolderItem, type FolderItems, type IsTrusted } from '../../config/kinds/kind';
import type { TrustEntryKind } from '../../config/trust-entry';
import { readMarkdownPlaces, type DefinitionPlace, type MarkdownCache, type MarkdownDefinition } from './markdown-files';

export interface DefinitionPlaces {
  dataDir: string;
  home: string;
  /** The folder (real path); its places load only through isTrusted. */
  folder?: string;
  /** Installed, enabled plugins' folders of this kind. */
  plugins?: readonly DefinitionPlace[];
}

/** A kind's places outside the folder: `<data-dir>/<dir>`, `~/.claude/<dir>`, and the plugins'. */
export function definitionPlaces(dir: 'commands' | 'agents', options: DefinitionPlaces): { person: DefinitionPlace[]; plugins: DefinitionPlace[] } {
  return {
    person: [join(options.dataDir, dir), join(options.home, '.claude', dir)].map((d) => ({ dir: d, source: 'user' as const })),
    plugins: [...(options.plugins ?? [])],
  };
}

/** The trust key of a folder's definition: its file relative to the folder, e.g. `command:.claude/commands/review.md`. */
export function definitionTrustKey(kind: TrustEntryKind, folder: string, file: string): string {
  return `${kind}:${relative(folder, file).split(sep).join('/')}`;
}

/** The folder's definitions of a kind as the trust question lists them (`LABEL: .claude/commands/x.md`) and their loader checks them. */
export function definitionItems(
  kind: TrustEntryKind,
  folder: string,
  projectPlaces: readonly string[],
  label: (d: MarkdownDefinition) => string | { problem: string },
  recursive: boolean,
  cache?: MarkdownCache,
): FolderItems<MarkdownDefinition> {
  const read = readMarkdownPlaces(projectPlaces.map((rel) => ({ dir: join(folder, rel), source: 'project' as const })), { recursive }, cache);
  const items: FolderItem<MarkdownDefinition>[] = [];
  const problems = [...read.problems];
  for (const definition of read.found) {
    const shown = label(definition);
    if (typeof shown !== 'string') {
      problems.push(`${definition.file}: ${shown.problem}`);
      continue;
    }
    const rel = relative(folder, definition.file).split(sep).join('/');
    items.push({ entry: { kind, key: definitionTrustKey(kind, folder, definition.file), file: definition.file, digest: definition.digest, label: visibleLine(`${shown}: ${rel}`) }, value: definition });
  }
  return { items, problems };
}

/**
 * A kind's definitions that load (the folder's trusted ones first: they win on a name, then the
 * person's and the plugins'), the folder's not trusted, and one line for each file its author
 * got wrong.
 */
export function discoverDefinitions<T extends { name: string }>(
  places: ReturnType<typeof definitionPlaces>,
  project: FolderItems<MarkdownDefinition>,
  options: { isTrusted: IsTrusted; recursive: boolean },
  check: (definition: MarkdownDefinition) => T | { problem: string },
  cache?: MarkdownCache,
): { found: T[]; untrusted: T[]; problems: string[] } {
  const person = readMarkdownPlaces([...places.plugins, ...places.person], { recursive: options.recursive }, cache);
  const split = splitByTrust(project.items, options.isTrusted);
  const problems = [...person.problems, ...project.problems];
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
  for (const value of [...checked(split.trusted), ...checked(person.found)]) if (!found.some((f) => f.name === value.name)) found.push(value);
  return { found, untrusted: checked(split.untrusted), problems: [...new Set(problems)] };
}
