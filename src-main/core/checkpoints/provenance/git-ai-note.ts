// A commit's authorship log in the git-ai Standard v3.0.0 (git-ai's specs/git_ai_standard_v3.0.0.md):
// per file (quoted when it holds a space, tab or newline) one line per key, indented two spaces,
// with its ascending 1-based line ranges (`1-4,9,12-14`); a line `---`; the metadata as JSON
// (serde's pretty print: two spaces) with `schema_version`, `base_commit_sha`, `prompts`,
// then `humans` and `sessions` when not empty.

import { createHash } from 'node:crypto';
import type { LineAuthor } from '../line-authors';

export const NOTES_REF = 'refs/notes/ai';

export interface AgentId {
  tool: string;
  id: string;
  model: string;
}

export interface NoteFile {
  path: string;
  /** The commit's added lines (1-based, at the commit) with their authors. */
  lines: ReadonlyArray<Pick<LineAuthor, 'line' | 'kind' | 'thread' | 'model' | 'agent'>>;
}

export interface NoteInput {
  commit: string;
  files: readonly NoteFile[];
  /** Git's `Name <email>` of the person; without it their lines are untracked. */
  person?: string;
  /** The tool an agent's lines are told under (git-ai's `agent_id.tool`), by its name. */
  toolOf(agent: string | undefined): string;
  /** Written into session records' custom attributes (e.g. recovered by content). */
  attributes?: Record<string, string>;
}

const hex14 = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 14);

/** A thread's session: `s_` + the first 14 hex of sha256("deepdesk:" + thread) (SPEC §24). */
export const sessionId = (thread: string): string => `s_${hex14(`deepdesk:${thread}`)}`;
export const humanKey = (person: string): string => `h_${hex14(person)}`;

export function gitAiNote(input: NoteInput): string {
  const sessions = new Map<string, { agent_id: AgentId; human_author: string | null; custom_attributes?: Record<string, string> }>();
  const humans = new Map<string, { author: string }>();
  const out: string[] = [];
  for (const file of input.files) {
    const byKey = new Map<string, number[]>();
    for (const l of file.lines) {
      const key = keyOf(l);
      if (key === undefined) continue;
      const list = byKey.get(key);
      if (list) list.push(l.line);
      else byKey.set(key, [l.line]);
    }
    if (byKey.size === 0) continue;
    out.push(/[ \t\n]/.test(file.path) ? `"${file.path}"` : file.path);
    for (const [key, lines] of byKey) out.push(`  ${key} ${ranges(lines)}`);
  }
  const meta: Record<string, unknown> = { schema_version: 'authorship/3.0.0', base_commit_sha: input.commit, prompts: {} };
  if (humans.size > 0) meta.humans = Object.fromEntries([...humans].sort(([a], [b]) => (a < b ? -1 : 1)));
  if (sessions.size > 0) meta.sessions = Object.fromEntries([...sessions].sort(([a], [b]) => (a < b ? -1 : 1)));
  return [...out, '---', JSON.stringify(meta, null, 2)].join('\n') + '\n';

  function keyOf(l: NoteFile['lines'][number]): string | undefined {
    if (l.kind === 'person' && input.person !== undefined) {
      const key = humanKey(input.person);
      humans.set(key, { author: input.person });
      return key;
    }
    if (l.kind !== 'agent' || l.thread === undefined) return undefined;
    const session = sessionId(l.thread);
    if (!sessions.has(session)) {
      const agentId = { tool: input.toolOf(l.agent), id: l.thread, model: l.model ?? 'unknown' };
      sessions.set(session, { agent_id: agentId, human_author: input.person ?? null, ...(input.attributes ? { custom_attributes: input.attributes } : {}) });
    }
    // One trace per session and commit (git-ai's is per checkpoint call; the commit is ours).
    return `${session}::t_${hex14(`${l.thread}:${input.commit}`)}`;
  }
}

/** Ascending lines as `1-4,9,12-14`. */
export function ranges(lines: readonly number[]): string {
  const sorted = [...new Set(lines)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}
