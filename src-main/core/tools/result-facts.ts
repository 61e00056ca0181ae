// What core knows of a tool result beyond its text: kept with the result and shown by the
// window, never sent to the model (whose text stays as SPEC §3 words it).

import { z } from 'zod';
import type { MediaKind } from '../media/kinds';

/**
 * What a read, grep, glob or ls came back with, counted where the text was written, so the
 * window says it (`3 matches in 2 files`, `lines 1–100 of 500`, `image 800×600`) without
 * reading the text. The model's text (SPEC §3) is unchanged by it.
 */
export type ResultGist =
  /** read_file of text: rows of lines `from`–`to` (1-based) of `total`. */
  | { kind: 'read'; from: number; to: number; total: number }
  /** read_file of an empty or whitespace-only file. */
  | { kind: 'read-empty' }
  /** read_file of media shown to the model as media, with what it holds when its header says. */
  | { kind: 'media'; media: MediaKind; holds?: MediaHolds }
  /** read_file of media this model does not take (`[image file …: this model does not take image input]`). */
  | { kind: 'media-not-taken'; media: MediaKind }
  /** read_file of a document given as its text (a PDF the model does not take, a .pptx): pages `from`–`to` of `total`, or none without a text layer. */
  | { kind: 'document-text'; unit: 'page' | 'slide'; total: number; from: number; to: number; noTextLayer?: boolean }
  /** read_file of a binary file that is not media. */
  | { kind: 'binary' }
  /** grep: matching lines, the files they are in, and whether the search stopped at max_count. */
  | { kind: 'grep'; matches: number; files: number; truncated: boolean }
  /** glob: the files found, and whether the search stopped early. */
  | { kind: 'glob'; files: number; truncated: boolean }
  /** ls: the entries listed. */
  | { kind: 'ls'; entries: number };

/** Who decided whether a tool call ran (SPEC §23; the `execute_tool` span's attribute). */
export type DecidedBy = 'rule' | 'mode' | 'sandbox' | 'hook' | 'reviewer' | 'person';

/** SPEC §23: the reviewer's answer (its `review_decision` call); as a verdict, the host derived it from risk × authorization. */
export const reviewAnswerSchema = z.object({
  decision: z.enum(['allow', 'deny']),
  risk: z.enum(['low', 'medium', 'high', 'critical']),
  authorization: z.enum(['none', 'low', 'medium', 'high']),
  category: z.enum(['scope_escalation', 'destructive_action', 'credential_access', 'external_sharing', 'security_bypass', 'persistence', 'protected_resource', 'trust_boundary', 'other']),
  rationale: z.string(),
});
export type ReviewVerdict = z.infer<typeof reviewAnswerSchema>;

/** What a media file holds, read from its own bytes: pages, pixels or seconds. */
export type MediaHolds = { pages: number } | { width: number; height: number } | { seconds: number };

/** Why a call did not run: a rule, a hook, the mode or the reviewer refused it, or the person rejected it or answered instead. */
export interface ToolRejection {
  by: 'person' | 'rule' | 'hook' | 'mode' | 'reviewer';
  /** What the person said when rejecting, or their answer (`answered`). */
  message?: string;
  /** The person did not run the call and answered instead. */
  answered?: boolean;
}

export interface ToolResultFacts {
  /** execute: the command's exit code (124 after its timeout); null: it was stopped before it ended. */
  exitCode?: number | null;
  /** execute: stopped at its timeout. */
  timedOut?: boolean;
  rejected?: ToolRejection;
  /** The result was too large for the context: it was saved to this file and the text is a notice with a preview. */
  evictedTo?: string;
  /** The call never finished (the run was stopped or the app closed while it ran). */
  interrupted?: boolean;
  /** read_file, grep, glob, ls: what came back, counted (see ResultGist). */
  gist?: ResultGist;
  /** Who decided that it ran or not (SPEC §23), with the reviewer's verdict when it did; `once`: the person allowed it once, after the reviewer denied the call of that id. */
  decided?: { by: DecidedBy; review?: ReviewVerdict; once?: string };
  /** read_file of a memory: which version it carried (SPEC §25 "Used in"). */
  memory?: { path: string; version: number };
  /** write_file or edit_file of a memory the host holds for the person (SPEC §25): its path. */
  proposedMemory?: string;
  /** task: the model its subagent ran on ('provider:model', SPEC §26). */
  subagentModel?: string;
}

/** The facts of a result (a tool's output, a stored result), without anything else it carries. */
export function resultFacts(from: ToolResultFacts): ToolResultFacts {
  const facts: ToolResultFacts = {};
  if (from.exitCode !== undefined) facts.exitCode = from.exitCode;
  if (from.timedOut) facts.timedOut = true;
  if (from.rejected !== undefined) {
    const { by, message, answered } = from.rejected;
    facts.rejected = { by, ...(message !== undefined ? { message } : {}), ...(answered ? { answered: true } : {}) };
  }
  if (from.evictedTo !== undefined) facts.evictedTo = from.evictedTo;
  if (from.interrupted) facts.interrupted = true;
  if (from.gist !== undefined) facts.gist = from.gist;
  if (from.decided !== undefined) {
    const { by, review, once } = from.decided;
    facts.decided = { by, ...(review !== undefined ? { review } : {}), ...(once !== undefined ? { once } : {}) };
  }
  if (from.memory !== undefined) facts.memory = { path: from.memory.path, version: from.memory.version };
  if (from.proposedMemory !== undefined) facts.proposedMemory = from.proposedMemory;
  if (from.subagentModel !== undefined) facts.subagentModel = from.subagentModel;
  return facts;
}
