// A SKILL.md's YAML front matter (between `---` lines at its top) checked against SPEC §11:
// `name` of lowercase letters, digits and hyphens (at most 64) equal to the folder's name,
// a non-empty `description` of at most 1,024 characters, an optional boolean
// `disable-model-invocation`. Every problem is a sentence naming the field.
//
// Front matter is data from wherever the skill came from (a cloned repository): it is read
// within bounded time and size (SPEC §9) — at most MAX_FRONT_MATTER_CHARS characters and
// MAX_FRONT_MATTER_LINES lines, no more than MAX_ALIASES aliases, duplicate keys not
// searched for (that search is quadratic in the keys) — and each content is parsed once.

import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

/** `yaml` is loaded when a front matter is first parsed: a host that never sees one never holds it. */
const requireHere = createRequire(import.meta.url);
const parseDocument: typeof Yaml.parseDocument = (...args) => (requireHere('yaml') as typeof Yaml).parseDocument(...args);

/** A name, a 1,024-character description and a few more fields fit several times over. */
export const MAX_FRONT_MATTER_CHARS = 8 * 1024;
export const MAX_FRONT_MATTER_LINES = 200;
/** Aliases a front matter may use: past this, expanding them is an attack (a billion laughs). */
export const MAX_ALIASES = 16;
export const MAX_NAME_LENGTH = 64;
export const MAX_DESCRIPTION_LENGTH = 1024;
const NAME = /^[a-z0-9-]+$/;

export interface SkillHeader {
  name: string;
  description: string;
  disableModelInvocation: boolean;
}

export type HeaderCheck = { header: SkillHeader; bodyStart: number } | { problem: string };

/** Splits the front matter from the body: the YAML text and where the body starts, or null when there is none. */
export function splitFrontMatter(text: string): { yaml: string; bodyStart: number } | null {
  const start = text.startsWith('\uFEFF') ? 1 : 0;
  const open = /^---[ \t]*\r?\n/.exec(text.slice(start));
  if (!open) return null;
  const yamlStart = start + open[0].length;
  const close = /^---[ \t]*(?:\r?\n|$)/m;
  const rest = text.slice(yamlStart);
  // An empty front matter closes on the very next line.
  const match = close.exec(rest);
  if (!match) return null;
  return { yaml: rest.slice(0, match.index), bodyStart: yamlStart + match.index + match[0].length };
}

/** Checks already made, by content and folder name (a few hundred skills at most are ever seen). */
const checked = new Map<string, HeaderCheck>();
const MAX_CHECKED = 512;

/** The check of a SKILL.md's header, made once per content and folder name. */
export function checkSkillHeader(text: string, folderName: string): HeaderCheck {
  const key = `${folderName}\0${createHash('sha256').update(text).digest('hex')}`;
  const known = checked.get(key);
  if (known !== undefined) return known;
  const check = checkHeader(text, folderName);
  if (checked.size >= MAX_CHECKED) checked.delete(checked.keys().next().value!);
  checked.set(key, check);
  return check;
}

function checkHeader(text: string, folderName: string): HeaderCheck {
  const split = splitFrontMatter(text);
  if (split === null) return { problem: 'has no front matter (it must start with a line `---`, the YAML, and a closing `---` line)' };
  const parsed = parseFrontMatter(split.yaml);
  if ('problem' in parsed) return parsed;
  const data = parsed.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return { problem: 'front matter is not a YAML mapping of fields' };
  const fields = data as Record<string, unknown>;
  const { name, description } = fields;
  if (name === undefined) return { problem: 'name: missing' };
  if (typeof name !== 'string') return { problem: 'name: must be text' };
  if (name.length > MAX_NAME_LENGTH) return { problem: `name: longer than ${MAX_NAME_LENGTH} characters` };
  if (!NAME.test(name)) return { problem: `name: '${name}' may hold only lowercase letters, digits and hyphens` };
  if (name !== folderName) return { problem: `name: '${name}' differs from its folder's name '${folderName}'` };
  if (description === undefined) return { problem: 'description: missing' };
  if (typeof description !== 'string') return { problem: 'description: must be text' };
  if (description.trim() === '') return { problem: 'description: is empty' };
  if (description.length > MAX_DESCRIPTION_LENGTH) return { problem: `description: longer than ${MAX_DESCRIPTION_LENGTH} characters (${description.length})` };
  const disable = fields['disable-model-invocation'];
  if (disable !== undefined && typeof disable !== 'boolean') return { problem: 'disable-model-invocation: must be true or false' };
  return { header: { name, description: description.trim(), disableModelInvocation: disable === true }, bodyStart: split.bodyStart };
}

/** The front matter's YAML as data, within the bounds; read leniently where strict YAML fails (SPEC §11). */
export function parseFrontMatter(yaml: string): { data: unknown } | { problem: string } {
  if (yaml.length > MAX_FRONT_MATTER_CHARS) {
    return { problem: `front matter is longer than ${MAX_FRONT_MATTER_CHARS.toLocaleString('en-US')} characters (${yaml.length.toLocaleString('en-US')}); it is not read` };
  }
  const lines = yaml.split('\n').length;
  if (lines > MAX_FRONT_MATTER_LINES) return { problem: `front matter has more than ${MAX_FRONT_MATTER_LINES} lines (${lines}); it is not read` };
  const strict = boundedYaml(yaml);
  if (!('syntax' in strict)) return strict;
  const lenient = lenientYaml(yaml);
  if (lenient !== yaml) {
    const second = boundedYaml(lenient);
    if (!('syntax' in second)) return second;
  }
  return { problem: `front matter is not valid YAML: ${strict.syntax}` };
}

/** Parses within the bounds: data, a refusal, or (`syntax`) why it is not YAML. */
function boundedYaml(yaml: string): { data: unknown } | { problem: string } | { syntax: string } {
  try {
    const doc = parseDocument(yaml, { prettyErrors: false, uniqueKeys: false });
    const error = doc.errors[0];
    if (error !== undefined) return { syntax: error.message.split('\n')[0] ?? error.message };
    if (countAliases(yaml) > MAX_ALIASES) return { problem: `front matter uses more than ${MAX_ALIASES} aliases; it is not read` };
    return { data: doc.toJS({ maxAliasCount: MAX_ALIASES }) };
  } catch (err) {
    // The parser's own limits (its stack on deep nesting, its alias count).
    return { problem: `front matter could not be read (${err instanceof Error ? err.message.split('\n')[0] : String(err)})` };
  }
}

/** `*name` aliases outside quotes, counted over-generously (a `*` in plain text counts too). */
function countAliases(yaml: string): number {
  return yaml.match(/(^|[\s,[{:-])\*[^\s,\]}]/g)?.length ?? 0;
}

/**
 * The reading Claude Code and other Agent Skills clients give to YAML that is technically
 * invalid: a top-level plain value that is not YAML on its own line (an unquoted `: `, a
 * leading `@` or backtick, `[file] [focus]` that starts a list and goes on past it) is quoted
 * as the text it plainly is. A line that is YAML on its own keeps its meaning (a list, a
 * block scalar); a value that opens a quote is left for the error it is.
 */
function lenientYaml(yaml: string): string {
  return yaml
    .split('\n')
    .map((line) => {
      // No lazy `(.*?)[ \t]*$`: it is quadratic on a line of spaces.
      const field = /^([A-Za-z0-9_-]+):[ \t]+(.*)$/.exec(line);
      if (field === null) return line;
      const key = field[1]!;
      const cr = field[2]!.endsWith('\r') ? '\r' : '';
      const value = field[2]!.slice(0, field[2]!.length - cr.length).trimEnd();
      if (value === '' || /^["']/.test(value) || yamlOnItsOwn(`${key}: ${value}`)) return line;
      return `${key}: ${JSON.stringify(value)}${cr}`;
    })
    .join('\n');
}

/** Whether one `key: value` line is YAML by itself (its aliases left unresolved: only its syntax counts). */
function yamlOnItsOwn(line: string): boolean {
  return parseDocument(line, { prettyErrors: false, uniqueKeys: false }).errors.length === 0;
}
