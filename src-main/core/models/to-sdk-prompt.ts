import type {
  LanguageModelV4FilePart,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4TextPart,
  LanguageModelV4ToolResultOutput,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import type { ChatMessage, ContentPart, MediaPart, ModelRequest, ToolCall, ToolSpec } from './types';

export interface PromptMapping {
  /**
   * 'native': images stay inside the tool result (Anthropic, OpenAI Responses).
   * 'user-message': Chat Completions tool messages carry text only, so images of a run of tool
   * results follow them in one user message.
   */
  toolResultImages: 'native' | 'user-message';
  /** Anthropic only: tool_result is_error, tool_use input must be an object, cache breakpoints. */
  anthropic: boolean;
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

export function toSdkPrompt(request: Pick<ModelRequest, 'system' | 'messages' | 'cacheBreakpoints'>, mapping: PromptMapping): LanguageModelV4Prompt {
  const cache = mapping.anthropic && request.cacheBreakpoints === true;
  const prompt: LanguageModelV4Prompt = [];
  if (request.system !== '') {
    prompt.push({ role: 'system', content: request.system, ...(cache ? { providerOptions: EPHEMERAL } : {}) });
  }

  const messages: LanguageModelV4Message[] = [];
  let pendingImages: Array<{ call: string; images: MediaPart[] }> = [];
  const flushImages = () => {
    if (pendingImages.length === 0) return;
    const content: Array<LanguageModelV4TextPart | LanguageModelV4FilePart> = [];
    for (const { call, images } of pendingImages) {
      content.push({ type: 'text', text: `Image${images.length > 1 ? 's' : ''} returned by ${call}:` });
      for (const image of images) content.push(imagePart(image));
    }
    messages.push({ role: 'user', content });
    pendingImages = [];
  };

  for (const message of request.messages) {
    if (message.role !== 'tool') flushImages();
    switch (message.role) {
      case 'user':
        messages.push({ role: 'user', content: userContent(message.content) });
        break;
      case 'assistant': {
        const converted = assistantMessage(message, mapping);
        if (converted) messages.push(converted);
        break;
      }
      case 'tool': {
        const { output, images } = toolOutput(message, mapping);
        if (images.length > 0) pendingImages.push({ call: `${message.toolName} (call ${message.toolCallId})`, images });
        messages.push({
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: message.toolCallId, toolName: message.toolName, output }],
        });
        break;
      }
    }
  }
  flushImages();

  if (cache) {
    for (const message of messages.slice(-2)) message.providerOptions = EPHEMERAL;
  }
  prompt.push(...messages);
  return prompt;
}

function userContent(content: string | ContentPart[]): Array<LanguageModelV4TextPart | LanguageModelV4FilePart> {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part) => (part.type === 'text' ? { type: 'text', text: part.text } : imagePart(part)));
}

function imagePart(image: MediaPart): LanguageModelV4FilePart {
  return { type: 'file', mediaType: image.mimeType, data: { type: 'data', data: image.data } };
}

function assistantMessage(message: Extract<ChatMessage, { role: 'assistant' }>, mapping: PromptMapping): LanguageModelV4Message | undefined {
  const content: Extract<LanguageModelV4Message, { role: 'assistant' }>['content'] = [];
  if (message.content !== '') content.push({ type: 'text', text: message.content });
  for (const call of message.toolCalls ?? []) {
    content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: historyInput(call, mapping) });
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
): { output: LanguageModelV4ToolResultOutput; images: MediaPart[] } {
  // OpenAI Chat wraps 'error-text' in {"error": ...}; only Anthropic has a real error flag (is_error).
  const textOutput = (value: string): LanguageModelV4ToolResultOutput =>
    message.isError === true && mapping.anthropic ? { type: 'error-text', value } : { type: 'text', value };
  if (typeof message.content === 'string') return { output: textOutput(message.content), images: [] };

  const texts = message.content.filter((part): part is Extract<ContentPart, { type: 'text' }> => part.type === 'text');
  const images = message.content.filter((part): part is MediaPart => part.type !== 'text');
  if (images.length === 0) return { output: textOutput(texts.map((part) => part.text).join('\n')), images: [] };

  if (mapping.toolResultImages === 'native') {
    return {
      output: {
        type: 'content',
        value: message.content.map((part) =>
          part.type === 'text'
            ? { type: 'text', text: part.text }
            : { type: 'file', mediaType: part.mimeType, data: { type: 'data', data: part.data } },
        ),
      },
      images: [],
    };
  }
  const note = `[${images.length} image${images.length > 1 ? 's' : ''} attached in the next message]`;
  return { output: textOutput([...texts.map((part) => part.text), note].join('\n')), images };
}
