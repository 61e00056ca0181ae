// What a person's message becomes before the model sees it (SPEC §9 last bullet, §10, §11):
// its slash command resolved, then the `@server:URI` resources and `@path` files mentioned in
// what the person typed attached after it. Only the person's own words are read for commands
// and mentions: a skill's body, an MCP prompt's text, an editor's embedded file and whatever
// was attached are data, never expanded (a repository's prompt that mentions
// `@vault:secret://x` must not make Deepdesk read the person's own server into the request).
// One pipeline for the window, `deepdesk run` and ACP.

import type { Backend } from '../../core/backends/protocol';
import { McpReferenceError, resourceAttachments } from '../mcp/message-references';
import { fileAttachments } from '../threads/mention-attachments';
import { resolveSlash, SlashCommandError, turnOf, type CommandSources, type SlashOutcome, type Turn } from './slash-commands';

export interface InputSources extends CommandSources {
  /** Where `@path` mentions are read; without it they stay text (ACP: the editor attaches files itself). */
  files?: Backend;
}

/** A message for the model. */
export interface PersonMessage {
  kind: 'send';
  /** What the person typed, or the text their command gave (a skill's body and its arguments, a prompt's text). */
  body: string;
  /** Whether `body` is a command's text rather than what the person typed. */
  fromCommand: boolean;
  /** The resources and files the person's own words mention, each an `<attached_…>` block. */
  attachments: readonly string[];
  /** What the command's `allowed-tools` lets run without asking during this message's turn, and its shell lines. */
  turn?: Turn;
}

export type InputOutcome = Exclude<SlashOutcome, { kind: 'send' }> | PersonMessage;

/** What the person typed becomes. Throws SlashCommandError or McpReferenceError (see isInputError) for a bad command or mention. */
export async function expandInput(typed: string, sources: InputSources, signal?: AbortSignal): Promise<InputOutcome> {
  const outcome = await resolveSlash(typed, sources, signal);
  if (outcome !== null && outcome.kind !== 'send') return outcome;
  const own = outcome === null ? typed : outcome.personText;
  const attachments = [
    ...(sources.mcp && own !== '' ? await resourceAttachments(own, sources.mcp, signal) : []),
    ...(sources.files && own !== '' ? await fileAttachments(own, sources.files) : []),
    ...(sources.files && outcome?.commandText !== undefined ? await fileAttachments(outcome.commandText, sources.files) : []),
  ];
  const turn = outcome === null ? undefined : turnOf(outcome);
  return { kind: 'send', body: outcome === null ? typed : outcome.text, fromCommand: outcome !== null, attachments, ...(turn ? { turn } : {}) };
}

/** The message's text: its body with the attachments after it. */
export function messageText(message: PersonMessage): string {
  return withAttachments(message.body, message.attachments);
}

export function withAttachments(text: string, attachments: readonly string[]): string {
  return attachments.length === 0 ? text : `${text}\n\n${attachments.join('\n\n')}`;
}

/** A bad command or a mention that could not be read: one line for the person, nothing sent. */
export function isInputError(err: unknown): err is SlashCommandError | McpReferenceError {
  return err instanceof SlashCommandError || err instanceof McpReferenceError;
}
