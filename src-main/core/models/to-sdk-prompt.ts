import type {
  LanguageModelV4FilePart,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4TextPart,
  LanguageModelV4ToolResultOutput,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import { takesMedia } from '../media/capabilities';
import type { MediaInput, ChatMessage, ContentPart, MediaPart, ModelRequest, ProviderMetadata, ProviderName, ToolCall, ToolSpec } from './types';
import { base64Bytes, formatSize, mediaKindOf, notTakenNotice } from '../media/kinds';
import type { MediaKind } from '../media/kinds';

export interface PromptMapping {
  /**
   * The MIME types (`image/*` wildcards allowed) that go inside a tool result (Anthropic: images
   * and PDFs; Google: all; OpenAI Responses: images and PDFs). Media of other types, and all of
   * it for Chat Completions, whose tool messages carry text only, follow a run of tool results
   * in one user message.
   */
  toolResultMedia: MediaInput;
  /** Anthropic only: tool_result is_error, tool_use input must be an object, cache breakpoints. */
  anthropic: boolean;
}

/** The model a prompt is built for. */
export interface PromptTarget {
  provider: ProviderName;
  /** What it takes; media of other types become SPEC §12's notice. Undefined: everything. */
  mediaInput: MediaInput | undefined;
}

const EPHEMERAL: SharedV4ProviderOptions = { anthropic: { cacheControl: { type: 'ephemeral' } } };

export function toSdkTools(tools: ToolSpec[], cacheLast: boolean): LanguageModelV4FunctionTool[] {
  return tools.map((tool, index) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters as LanguageModelV4FunctionTool['inputSchema'],
    ...(cacheLast && index === tools.length - 1 ? { providerOptions: EPHEMERAL } : {}),
  }));
}

export function toSdkPrompt(
  request: Pick<ModelRequest, 'system' | 'messages' | 'cacheBreakpoints'>,
  mapping: PromptMapping,
  target: PromptTarget,
): LanguageModelV4Prompt {
  const cache = mapping.anthropic && request.cacheBreakpoints === true;
  const prompt: LanguageModelV4Prompt = [];
  if (request.system !== '') {
    prompt.push({ role: 'system', content: request.system, ...(cache ? { providerOptions: EPHEMERAL } : {}) });
  }

  const messages: LanguageModelV4Message[] = [];
  let pendingMedia: Array<{ call: string; media: MediaPart[] }> = [];
  const flushMedia = () => {
    if (pendingMedia.length === 0) return;
    const content: Array<LanguageModelV4TextPart | LanguageModelV4FilePart> = [];
    for (const { call, media } of pendingMedia) {
      for (const part of media) {
        content.push({ type: 'text', text: `${describeMedia(part)} returned by ${call}:` });
        content.push(filePart(part));
      }
    }
    messages.push({ role: 'user', content });
    pendingMedia = [];
  };

  for (const message of request.messages) {
    if (message.role !== 'tool') flushMedia();
    switch (message.role) {
      case 'user':
        messages.push({ role: 'user', content: userContent(message.content, target.mediaInput) });
        break;
      case 'assistant': {
        const converted = assistantMessage(message, mapping, target);
        if (converted) messages.push(converted);
        break;
      }
      case 'tool': {
        const { output, media } = toolOutput(message, mapping, target.mediaInput);
        if (media.length > 0) pendingMedia.push({ call: `${message.toolName} (call ${message.toolCallId})`, media });
        messages.push({
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: message.toolCallId, toolName: message.toolName, output }],
        });
        break;
      }
    }
  }
  flushMedia();

  if (cache) {
    for (const message of messages.slice(-2)) message.providerOptions = EPHEMERAL;
  }
  prompt.push(...messages);
  return prompt;
}

/** The parts as the model may see them: media it does not take become SPEC §12's one-line notice. */
export function takenParts(content: readonly ContentPart[], input: MediaInput | undefined): ContentPart[] {
  return content.map((part) => {
    if (part.type === 'text' || takesMedia(input, part.mimeType)) return part;
    const kind = mediaKindOf(part);
    return { type: 'text', text: notTakenNotice(kind, part.name ?? 'attachment', sizeOf(part)) };
  });
}

function sizeOf(part: MediaPart): number {
  return part.bytes ?? base64Bytes(part.data);
}

const KIND_LABEL: Record<MediaKind, [one: string, many: string]> = {
  image: ['image', 'images'],
  audio: ['audio file', 'audio files'],
  video: ['video', 'videos'],
  document: ['document', 'documents'],
};

/** `Image /a.png (image/png, 812 B)` — the line that names a block sent apart from its tool result. */
function describeMedia(part: MediaPart): string {
  const label = KIND_LABEL[mediaKindOf(part)][0];
  const name = part.name !== undefined ? ` ${part.name}` : '';
  return `${label[0]!.toUpperCase()}${label.slice(1)}${name} (${part.mimeType}, ${formatSize(sizeOf(part))})`;
}

/** `[1 image, 2 audio files attached in the next message]` */
function attachedNote(media: readonly MediaPart[]): string {
  const counts = new Map<MediaKind, number>();
  for (const part of media) counts.set(mediaKindOf(part), (counts.get(mediaKindOf(part)) ?? 0) + 1);
  const words = [...counts].map(([kind, n]) => `${n} ${KIND_LABEL[kind][n > 1 ? 1 : 0]}`);
  return `[${words.join(', ')} attached in the next message]`;
}

function userContent(content: string | ContentPart[], input: MediaInput | undefined): Array<LanguageModelV4TextPart | LanguageModelV4FilePart> {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return takenParts(content, input).map((part) => (part.type === 'text' ? { type: 'text', text: part.text } : filePart(part)));
}

function filePart(part: MediaPart): LanguageModelV4FilePart {
  return { type: 'file', ...fileFields(part) };
}

/** The SDK's fields of a file, in a message or a tool result; the file name helps the model tell them apart. */
function fileFields(part: MediaPart): { mediaType: string; data: { type: 'data'; data: string }; filename?: string } {
  const filename = part.name?.split('/').pop();
  return { mediaType: part.mimeType, data: { type: 'data', data: part.data }, ...(filename ? { filename } : {}) };
}

function withMetadata<T extends object>(part: T, metadata: ProviderMetadata | undefined): T {
  return metadata === undefined ? part : { ...part, providerOptions: metadata as SharedV4ProviderOptions };
}

function assistantMessage(
  message: Extract<ChatMessage, { role: 'assistant' }>,
  mapping: PromptMapping,
  target: PromptTarget,
): LanguageModelV4Message | undefined {
  // Reasoning and provider metadata go back only to the provider that wrote them: another
  // provider cannot read them (and Anthropic rejects foreign thinking blocks).
  const own = message.provider === target.provider;
  const content: Extract<LanguageModelV4Message, { role: 'assistant' }>['content'] = [];
  if (own) {
    for (const block of message.reasoning ?? []) {
      if (block.providerMetadata !== undefined) content.push(withMetadata({ type: 'reasoning', text: block.text }, block.providerMetadata));
    }
  }
  const textMetadata = own ? message.textMetadata : undefined;
  // Gemini may sign an empty text part; that signature must go back too (Anthropic refuses empty text blocks).
  if (message.content !== '' || (textMetadata !== undefined && !mapping.anthropic)) content.push(withMetadata({ type: 'text', text: message.content }, textMetadata));
  for (const call of message.toolCalls ?? []) {
    const part = { type: 'tool-call' as const, toolCallId: call.id, toolName: call.name, input: historyInput(call, mapping) };
    content.push(withMetadata(part, own ? call.providerMetadata : undefined));
  }
  // An empty assistant turn is rejected by Anthropic and says nothing to anyone else.
  return content.length === 0 ? undefined : { role: 'assistant', content };
}
/** Arguments of an earlier call as sent back to the provider. */
function historyInput(call: ToolCall, mapping: PromptMapping): unknown {
  if (call.parseError !== undefined) return {};
  const isObject = typeof call.args === 'object' && call.args !== null && !Array.isArray(call.args);
  // Anthropic rejects a tool_use whose input is not an object, which would break the whole thread.
  if (mapping.anthropic && !isObject) return {};
  return call.args ?? {};
}

function toolOutput(
  message: Extract<ChatMessage, { role: 'tool' }>,
  mapping: PromptMapping,
  input: MediaInput | undefined,
): { output: LanguageModelV4ToolResultOutput; media: MediaPart[] } {
  // OpenAI Chat wraps 'error-text' in {"error": ...}; only Anthropic has a real error flag (is_error).
  const textOutput = (value: string): LanguageModelV4ToolResultOutput =>
    message.isError === true && mapping.anthropic ? { type: 'error-text', value } : { type: 'text', value };
  if (typeof message.content === 'string') return { output: textOutput(message.content), media: [] };

  const parts = takenParts(message.content, input);
  const native = parts.filter((part) => part.type === 'text' || takesMedia(mapping.toolResultMedia, part.mimeType));
  const apart = parts.filter((part): part is MediaPart => part.type !== 'text' && !takesMedia(mapping.toolResultMedia, part.mimeType));
  if (!native.some((part) => part.type !== 'text')) {
    // No media inside the result: plain text, as every provider takes it.
    const texts = native.map((part) => (part.type === 'text' ? part.text : ''));
    if (apart.length > 0) texts.push(attachedNote(apart));
    return { output: textOutput(texts.join('\n')), media: apart };
  }
  const value = native.map((part) =>
    part.type === 'text' ? { type: 'text' as const, text: part.text } : { type: 'file' as const, ...fileFields(part) },
  );
  if (apart.length > 0) value.push({ type: 'text', text: attachedNote(apart) });
  return { output: { type: 'content', value }, media: apart };
}
