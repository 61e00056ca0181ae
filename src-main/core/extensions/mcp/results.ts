// MCP results as Deepdesk tool outputs (SPEC §10): text parts joined; the first image as an
// image block (later ones named in the text); resource links and embedded resources as text
// naming their URI (an embedded text resource with its text); structuredContent as JSON
// when there is no text; isError → `Error: `.
import { base64Bytes } from '../../media/kinds';
import type { ToolMedia, ToolOutput } from '../../tools/tool';

/** One content block as servers send it (text, image, audio, resource_link, resource). */
export interface McpContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri: string; mimeType?: string; text?: string; blob?: string };
}

export interface McpCallResult {
  content?: McpContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  /** Very old servers answer `{ toolResult }`. */
  toolResult?: unknown;
}

/** What a message shows for content the model cannot take as text. */
export function blockText(block: McpContentBlock, image: { taken: boolean } | null): { text?: string; image?: ToolMedia } {
  switch (block.type) {
    case 'text':
      return { text: block.text ?? '' };
    case 'image':
      if (image !== null && !image.taken && typeof block.data === 'string') {
        image.taken = true;
        return { image: { kind: 'image', mimeType: block.mimeType ?? 'image/png', data: block.data, bytes: base64Bytes(block.data) } };
      }
      return { text: `[image (${block.mimeType ?? 'unknown type'}) not shown${image !== null ? ': only the first image of a result is' : ''}]` };
    case 'audio':
      return { text: `[audio (${block.mimeType ?? 'unknown type'}) not shown]` };
    case 'resource_link':
      return { text: `[resource ${block.uri ?? '?'}${block.name ? ` (${block.name})` : ''}${block.mimeType ? `, ${block.mimeType}` : ''}]` };
    case 'resource': {
      const r = block.resource;
      if (r === undefined) return { text: '[resource]' };
      if (typeof r.text === 'string') return { text: `[resource ${r.uri}${r.mimeType ? `, ${r.mimeType}` : ''}]\n${r.text}` };
      const bytes = typeof r.blob === 'string' ? Math.floor((r.blob.length * 3) / 4) : 0;
      return { text: `[resource ${r.uri}${r.mimeType ? `, ${r.mimeType}` : ''}: ${bytes} bytes of binary data, not shown]` };
    }
    default:
      return { text: `[${block.type} content not shown]` };
  }
}

export function mcpResultOutput(result: McpCallResult): ToolOutput {
  const parts: string[] = [];
  let image: ToolMedia | undefined;
  const slot = { taken: false };
  let hasText = false;
  for (const block of result.content ?? []) {
    const shown = blockText(block, slot);
    if (shown.image) image = shown.image;
    if (shown.text !== undefined) {
      parts.push(shown.text);
      if (block.type === 'text' && shown.text.trim() !== '') hasText = true;
    }
  }
  if (!hasText && result.structuredContent !== undefined) parts.unshift(JSON.stringify(result.structuredContent, null, 2));
  if (parts.length === 0 && result.toolResult !== undefined) parts.push(typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult, null, 2));
  let body = parts.join('\n');
  if (body === '') body = image ? `[image (${image.mimeType})]` : '(no output)';
  if (result.isError) return { text: `Error: ${body}`, ...(image ? { media: image } : {}) };
  return { text: body, ...(image ? { media: image } : {}) };
}
