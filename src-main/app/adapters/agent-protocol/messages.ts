// A Deepdesk thread's messages as the LangGraph SDK and useStream read them (SPEC §19): the
// dicts the reference server's `values` carry (a LangChain message's toDict() data plus its
// type), and a run's input `messages` back into the prompt a Deepdesk run takes.

import { isNote, isPersonMessage } from '../../../core/agent/notes';
import { JsonArrayText } from '../../../core/text/json-chunks';
import { storedMessage } from '../../threads/thread-store';
import type { ChatMessage, ContentPart } from '../../../core/models/types';
import { attachmentsSchema, type AttachmentInput } from '../../contract/attachments';
import { ProtocolHttpError } from './http';

export type LangChainMessageType = 'human' | 'ai' | 'tool' | 'system';

/** A LangChain standard content block: text, or inline (base64) media. */
export type LangChainContentPart =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio' | 'video' | 'file'; mimeType: string; data: string; metadata?: { name?: string; filename?: string } };

export interface LangChainToolCall {
  name: string;
  args: Record<string, unknown>;
  id: string;
  type: 'tool_call';
}

/** A call whose arguments were not JSON, as LangChain keeps it. */
export interface LangChainInvalidToolCall {
  name: string;
  args: string;
  id: string;
  error: string;
  type: 'invalid_tool_call';
}

export interface LangChainMessage {
  type: LangChainMessageType;
  content: string | LangChainContentPart[];
  id: string;
  name?: string;
  tool_calls?: LangChainToolCall[];
  invalid_tool_calls?: LangChainInvalidToolCall[];
  tool_call_id?: string;
  status?: 'success' | 'error';
  additional_kwargs: Record<string, unknown>;
  response_metadata: Record<string, unknown>;
}

/**
 * The id of a thread's message at `index`: the same at every read, so a client can key it,
 * and known before the message is saved (a run streaming it uses the index it will have).
 */
export function messageId(threadId: string, index: number): string {
  return `${threadId}:${index}`;
}

/** Messages [from, to) of a thread as LangChain dicts (the whole thread by default). */
export function toLangChainMessages(threadId: string, messages: readonly ChatMessage[], from = 0, to = messages.length): LangChainMessage[] {
  const out: LangChainMessage[] = [];
  for (let i = from; i < to; i++) out.push(toLangChainMessage(messages[i]!, messageId(threadId, i)));
  return out;
}

/**
 * A thread's messages as LangChain dicts written as JSON text as they are read, from their
 * stored rows (a long thread's state is never held as objects, issue 66): the text is exactly
 * JSON.stringify(toLangChainMessages(threadId, messages)) of the messages the thread's load()
 * reads, encoded as UTF-8 a batch at a time (the text of a batch is let go young). Also the
 * message counts at which the thread's turns end (thread-state.ts's turnEnds).
 *
 * A row of one of the shapes the store writes for a plain message (a tool's text result, the
 * person's text, the model's text without calls) is not parsed and written again: its strings
 * are put in as they are stored, once the expression has shown the whole row is that shape with
 * nothing else in it, and each string is written as JSON.stringify writes it (no escape but
 * \" \\ \b \f \n \r \t; no control character or surrogate): the same bytes. Any other row
 * is parsed as load() parses it and converted.
 */
export class LangChainMessagesText {
  private readonly pieces: Buffer[] = [];
  private text = '';
  private readonly turnEnds: number[] = [];
  private count = 0;

  constructor(private readonly threadId: string) {}

  /** A stored message row's JSON text (thread-store's readEachText); a corrupt row is no message, as load() skips it. */
  addStored(json: string): void {
    const member = this.plainMember(json);
    if (member !== undefined) {
      this.append(member);
      return;
    }
    const message = storedMessage(json);
    if (message !== undefined) this.add(message);
  }

  add(message: ChatMessage): void {
    const index = this.count++;
    if (index >= 1 && isPersonMessage(message)) this.turnEnds.push(index);
    this.append(JSON.stringify(toLangChainMessage(message, messageId(this.threadId, index))));
  }

  /** The messages' JSON, how many there are, and where their turns end (the last: their count). */
  finish(): { json: JsonArrayText; count: number; ends: number[] } {
    this.flush();
    return { json: new JsonArrayText(this.pieces), count: this.count, ends: this.count > 0 ? [...this.turnEnds, this.count] : [] };
  }

  /** The member's text (toLangChainMessage's, written) for a row of a plain shape, counted; undefined to parse the row. */
  private plainMember(json: string): string | undefined {
    let m = PLAIN_TOOL.exec(json);
    if (m !== null) {
      const id = JSON.stringify(messageId(this.threadId, this.count++));
      return `{"type":"tool","content":${m[3]},"id":${id},"additional_kwargs":{},"response_metadata":{},"name":${m[2]},"tool_call_id":${m[1]},"status":${m[4] === 'true' ? '"error"' : '"success"'}}`;
    }
    m = PLAIN_TEXT.exec(json);
    if (m === null) return undefined;
    const index = this.count++;
    const id = JSON.stringify(messageId(this.threadId, index));
    if (m[1] === 'assistant') return `{"type":"ai","content":${m[2]},"id":${id},"additional_kwargs":{},"response_metadata":{},"tool_calls":[],"invalid_tool_calls":[]}`;
    // The person's words (a note has a `note`: not this shape).
    if (index >= 1) this.turnEnds.push(index);
    return `{"type":"human","content":${m[2]},"id":${id},"additional_kwargs":{},"response_metadata":{}}`;
  }

  private append(member: string): void {
    this.text = this.text === '' ? member : `${this.text},${member}`;
    if (this.text.length >= TEXT_PIECE_CHARS) this.flush();
  }

  private flush(): void {
    if (this.text === '') return;
    this.pieces.push(Buffer.from(this.text));
    this.text = '';
  }
}

/** Members' text encoded together (then let go). */
const TEXT_PIECE_CHARS = 256 * 1024;
/** A JSON string exactly as JSON.stringify writes it (see LangChainMessagesText). */
const PLAIN_STRING = String.raw`"[^"\\\x00-\x1f\ud800-\udfff]*(?:\\["\\bfnrt][^"\\\x00-\x1f\ud800-\udfff]*)*"`;
/** A tool's text result as the store writes it: its call's id, its tool, its text, whether it failed; nothing else. */
const PLAIN_TOOL = new RegExp(String.raw`^\{"role":"tool","toolCallId":(${PLAIN_STRING}),"toolName":(${PLAIN_STRING}),"content":(${PLAIN_STRING})(?:,"isError":(true|false))?\}$`);
/** The person's text (not a note), or the model's text with no calls, provider or reasoning: nothing else. */
const PLAIN_TEXT = new RegExp(String.raw`^\{"role":"(user|assistant)","content":(${PLAIN_STRING})\}$`);

export function toLangChainMessage(message: ChatMessage, id: string): LangChainMessage {
  const base = { id, additional_kwargs: {}, response_metadata: {} };
  switch (message.role) {
    case 'user':
      // A note is Deepdesk telling the model something (a restore, a stop): not the person's words.
      return { type: isNote(message) ? 'system' : 'human', content: contentOf(message.content), ...base };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      return {
        type: 'ai',
        content: message.content,
        ...base,
        tool_calls: calls.filter((c) => c.parseError === undefined).map((c) => ({ name: c.name, args: argsObject(c.args), id: c.id, type: 'tool_call' })),
        invalid_tool_calls: calls.flatMap((c) => (c.parseError === undefined ? [] : [{ name: c.name, args: c.argsText, id: c.id, error: c.parseError, type: 'invalid_tool_call' as const }])),
      };
    }
    case 'tool':
      return { type: 'tool', content: contentOf(message.content), ...base, name: message.toolName, tool_call_id: message.toolCallId, status: message.isError === true ? 'error' : 'success' };
  }
}

function argsObject(args: unknown): Record<string, unknown> {
  return args !== null && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

function contentOf(content: string | ContentPart[]): string | LangChainContentPart[] {
  return typeof content === 'string' ? content : content.map(partOf);
}

function partOf(part: ContentPart): LangChainContentPart {
  if (part.type === 'text') return { type: 'text', text: part.text };
  const type = part.type === 'image' ? 'image' : part.mimeType.startsWith('audio/') ? 'audio' : part.mimeType.startsWith('video/') ? 'video' : 'file';
  const metadata = part.name === undefined ? undefined : type === 'image' ? { name: part.name } : { filename: part.name };
  return { type, mimeType: part.mimeType, data: part.data, ...(metadata ? { metadata } : {}) };
}

/** What a run's input `messages` ask of a Deepdesk run: the person's text and what they attached (as the window sends files). */
export interface ProtocolPrompt {
  prompt: string;
  attachments: AttachmentInput[];
}

const PERSON_TYPES = new Set(['human', 'user']);
const KNOWN_TYPES = new Set(['human', 'user', 'ai', 'assistant', 'tool', 'system', 'developer', 'function', 'remove']);
const LC_CLASSES: Readonly<Record<string, string>> = { HumanMessage: 'human', AIMessage: 'ai', ToolMessage: 'tool', SystemMessage: 'system' };

/**
 * The prompt of the last of the person's (human/user) messages in a run's `input.messages`:
 * its text and inline media. What comes before it is the thread's already, and the others
 * (ai, tool, system) are not the person's words: a Deepdesk thread holds only what its own
 * model said. Every entry is checked: 422 naming the field for a malformed one. `field`
 * names the list (e.g. `input.messages`).
 */
export function lastPersonMessage(messages: unknown, field = 'input.messages'): ProtocolPrompt {
  const list = Array.isArray(messages) ? messages : [messages];
  const at = (i: number) => (Array.isArray(messages) ? `${field}[${i}]` : field);
  let last: { content: unknown; at: string } | undefined;
  list.forEach((raw, i) => {
    const entry = normalEntry(raw, at(i));
    if (PERSON_TYPES.has(entry.type)) last = { content: entry.content, at: at(i) };
  });
  if (last === undefined) throw invalid(field, 'has no message from the person (type "human" or role "user")');
  const { content } = last;
  if (typeof content === 'string') {
    if (content === '') throw invalid(`${last.at}.content`, 'has no text or media');
    return { prompt: content, attachments: [] };
  }
  if (!Array.isArray(content)) throw invalid(`${last.at}.content`, 'must be a string or a list of content parts');
  const texts: string[] = [];
  const attachments: AttachmentInput[] = [];
  content.forEach((part, j) => {
    const taken = inputPart(part, `${last!.at}.content[${j}]`, j + 1);
    if ('text' in taken) texts.push(taken.text);
    else attachments.push(taken);
  });
  const prompt = texts.filter((t) => t !== '').join('\n');
  if (prompt === '' && attachments.length === 0) throw invalid(`${last.at}.content`, 'has no text or media');
  const checked = attachmentsSchema.safeParse(attachments);
  if (!checked.success) throw invalid(`${last.at}.content`, checked.error.issues[0]?.message ?? 'too much attached');
  return { prompt, attachments };
}

function normalEntry(raw: unknown, at: string): { type: string; content: unknown } {
  if (typeof raw === 'string') return { type: 'human', content: raw };
  if (raw === null || typeof raw !== 'object') throw invalid(at, 'must be a message object');
  const entry = raw as Record<string, unknown>;
  // A LangChain message serialised by its toJSON(): {lc: 1, type: 'constructor', id: [..., 'HumanMessage'], kwargs}.
  if (entry.lc === 1 && entry.type === 'constructor' && Array.isArray(entry.id)) {
    const cls = entry.id[entry.id.length - 1];
    const kwargs = (entry.kwargs ?? {}) as Record<string, unknown>;
    return { type: (typeof cls === 'string' ? LC_CLASSES[cls] : undefined) ?? 'unknown', content: kwargs.content };
  }
  const type = typeof entry.type === 'string' ? entry.type : typeof entry.role === 'string' ? entry.role : undefined;
  if (type === undefined) throw invalid(at, 'needs a "type" or "role"');
  if (!KNOWN_TYPES.has(type)) throw invalid(`${at}.${typeof entry.type === 'string' ? 'type' : 'role'}`, `"${type}" is not a message type`);
  return { type, content: entry.content };
}

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)(?:;[^,;]*)*;base64,(.*)$/s;

function inputPart(raw: unknown, at: string, n: number): { text: string } | AttachmentInput {
  if (typeof raw === 'string') return { text: raw };
  if (raw === null || typeof raw !== 'object') throw invalid(at, 'must be a content part object');
  const part = raw as Record<string, unknown>;
  if (part.type === 'text') {
    if (typeof part.text !== 'string') throw invalid(`${at}.text`, 'must be a string');
    return { text: part.text };
  }
  if (part.type === 'image_url') {
    const url = typeof part.image_url === 'string' ? part.image_url : (part.image_url as { url?: unknown } | undefined)?.url;
    const match = typeof url === 'string' ? DATA_URL.exec(url) : null;
    if (match === null) throw invalid(`${at}.image_url`, 'only inline images are taken (a data: URL with base64)');
    return attachment(match[1]!, match[2]!, undefined, n);
  }
  if (part.type === 'image' || part.type === 'file' || part.type === 'audio' || part.type === 'video') {
    const mime = typeof part.mimeType === 'string' ? part.mimeType : typeof part.mime_type === 'string' ? part.mime_type : undefined;
    const fromUrl = typeof part.url === 'string' ? DATA_URL.exec(part.url) : null;
    const data = typeof part.data === 'string' && (part.source_type === undefined || part.source_type === 'base64') ? part.data : fromUrl?.[2];
    if (data === undefined) throw invalid(at, 'only inline media is taken (base64 `data`, or a data: URL)');
    const type = mime ?? fromUrl?.[1];
    if (type === undefined) throw invalid(`${at}.mimeType`, 'is needed with base64 data');
    const metadata = (part.metadata ?? {}) as Record<string, unknown>;
    const name = [metadata.filename, metadata.name, part.filename, part.name].find((n): n is string => typeof n === 'string' && n !== '');
    return attachment(type, data, name, n);
  }
  throw invalid(`${at}.type`, `"${String(part.type)}" is not a content part this server takes (text, image_url, image, file, audio, video)`);
}

/** A part as the window sends a file; one with no name is called after its place and type (`attachment-2.png`). */
function attachment(mimeType: string, data: string, name: string | undefined, n: number): AttachmentInput {
  const extension = (mimeType.split('/')[1] ?? '').replace(/\W.*$/, '') || 'bin';
  return { name: name ?? `attachment-${n}.${extension}`, mimeType, data };
}

function invalid(field: string, problem: string): ProtocolHttpError {
  return new ProtocolHttpError(422, `${field}: ${problem}`);
}
