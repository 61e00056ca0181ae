// A SKILL.md's YAML front matter (between `---` lines at its top) checked against SPEC §11:
// `name` of lowercase letters, digits and hyphens (at most 64) equal to the folder's name,
// a non-empty `description` of at most 1,024 characters, an optional boolean
// `disable-model-invocation`. Every problem is a sentence naming the field.

import { parseDocument } from 'yaml';

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

export function checkSkillHeader(text: string, folderName: string): HeaderCheck {
  const split = splitFrontMatter(text);
  if (split === null) return { problem: 'has no front matter (it must start with a line `---`, the YAML, and a closing `---` line)' };
  const doc = parseDocument(split.yaml, { prettyErrors: false });
  const error = doc.errors[0];
  if (error !== undefined) return { problem: `front matter is not valid YAML: ${error.message.split('\n')[0] ?? error.message}` };
  const data: unknown = doc.toJS();
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
