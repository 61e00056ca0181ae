// MCP results as Deepdesk tool outputs (SPEC §10, §12): text parts joined; the first media
// block of any kind (an image, audio, an embedded blob of a media type) as the output's
// media (later ones named in the text); resource links and embedded resources as text
// naming their URI (an embedded text resource with its text); structuredContent as JSON
// when there is no text; isError → `Error: `. A media block goes as the media its bytes are:
// one whose bytes are not the kind it declares is only named.
import { base64Bytes, kindOfMime } from '../../media/kinds';
import { base64Head, mediaTypeByContent } from '../../media/sniff';
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

/** Whether a result still has room for its one media block (the first one found takes it). */
export interface MediaSlot {
  taken: boolean;
}

/**
 * What a message shows for a content block: its text, or (for the first media block of a
 * result: an image, audio, or an embedded blob of a media type) the block itself. Without
 * a slot, media are only named.
 */
export function blockText(block: McpContentBlock, slot: MediaSlot | null): { text?: string; media?: ToolMedia } {
  switch (block.type) {
    case 'text':
      return { text: block.text ?? '' };
    case 'image':
    case 'audio': {
      const mimeType = block.mimeType ?? (block.type === 'image' ? 'image/png' : undefined);
      const media = takeMedia(slot, mimeType, block.data);
      if (media === 'not-that-media') return { text: `[${block.type} (${mimeType}) not shown: its bytes are not ${mimeType}]` };
      if (media) return { media };
      return { text: `[${block.type} (${block.mimeType ?? 'unknown type'}) not shown${slot?.taken === true ? ': only the first media block of a result is' : ''}]` };
    }
    case 'resource_link':
      return { text: `[resource ${block.uri ?? '?'}${block.name ? ` (${block.name})` : ''}${block.mimeType ? `, ${block.mimeType}` : ''}]` };
    case 'resource': {
      const r = block.resource;
      if (r === undefined) return { text: '[resource]' };
      const named = `[resource ${r.uri}${r.mimeType ? `, ${r.mimeType}` : ''}`;
      if (typeof r.text === 'string') return { text: `${named}]\n${r.text}` };
      const media = takeMedia(slot, r.mimeType, r.blob, r.uri);
      if (media === 'not-that-media') return { text: `${named}: its bytes are not ${r.mimeType}, not shown]` };
      if (media) return { text: `${named}]`, media };
      const bytes = typeof r.blob === 'string' ? base64Bytes(r.blob) : 0;
      return { text: `${named}: ${bytes} bytes of binary data, not shown]` };
    }
    default:
      return { text: `[${block.type} content not shown]` };
  }
}

/** The block as media when it is one (by its bytes) and the result has no media block yet. */
function takeMedia(slot: MediaSlot | null, declared: string | undefined, data: string | undefined, name?: string): ToolMedia | 'not-that-media' | undefined {
  if (slot === null || slot.taken || typeof data !== 'string' || declared === undefined) return undefined;
  const kind = kindOfMime(declared);
  if (kind === null) return undefined;
  const mimeType = mediaTypeByContent(declared, base64Head(data));
  if (mimeType === null) return 'not-that-media';
  slot.taken = true;
  return { kind, mimeType, data, bytes: base64Bytes(data), ...(name !== undefined ? { name } : {}) };
}

export function mcpResultOutput(result: McpCallResult): ToolOutput {
  const parts: string[] = [];
  let media: ToolMedia | undefined;
  const slot: MediaSlot = { taken: false };
  let hasText = false;
  for (const block of result.content ?? []) {
    const shown = blockText(block, slot);
    if (shown.media) media = shown.media;
    if (shown.text !== undefined) {
      parts.push(shown.text);
      if (block.type === 'text' && shown.text.trim() !== '') hasText = true;
    }
  }
  if (!hasText && result.structuredContent !== undefined) parts.unshift(JSON.stringify(result.structuredContent, null, 2));
  if (parts.length === 0 && result.toolResult !== undefined) parts.push(typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult, null, 2));
  let body = parts.join('\n');
  if (body === '') body = media ? `[${media.kind} (${media.mimeType})]` : '(no output)';
  if (result.isError) return { text: `Error: ${body}`, ...(media ? { media } : {}) };
  return { text: body, ...(media ? { media } : {}) };
}
