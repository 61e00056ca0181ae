// An editor's prompt (SPEC §14) as the person's message: what they typed (its text blocks, read
// for slash commands and mentions), then its blocks as parts (SPEC §12: images go to the model
// as images) and the attachments their mentions named.

import type { ContentBlock } from '@agentclientprotocol/sdk';
import type { ContentPart } from '../../../core/models/types';
import { withAttachments, type PersonMessage } from '../../commands/person-input';

/** What the person typed: the prompt's text blocks. */
export function typedText(blocks: readonly ContentBlock[]): string {
  return blocks.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/**
 * The prompt's blocks as the person's message (SPEC §12: images go to the model as images):
 * the text blocks, or the command's text in their place, then the attachments the person's
 * mentions named.
 */
export function promptContent(blocks: readonly ContentBlock[], message: PersonMessage): string | ContentPart[] {
  const parts: ContentPart[] = [];
  if (message.fromCommand) parts.push({ type: 'text', text: message.body });
  for (const block of blocks) {
    if (block.type === 'text' && message.fromCommand) continue;
    const part = blockPart(block);
    if (part !== undefined) parts.push(part);
  }
  if (message.attachments.length > 0) parts.push({ type: 'text', text: withAttachments('', message.attachments) });
  if (parts.every((p) => p.type === 'text')) return parts.map((p) => (p as { text: string }).text).join('');
  return parts;
}

function blockPart(block: ContentBlock): ContentPart | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return { type: 'image', mimeType: block.mimeType, data: block.data, ...(block.uri ? { name: block.uri } : {}) };
    case 'audio':
      return { type: 'file', mimeType: block.mimeType, data: block.data };
    case 'resource_link':
      return { type: 'text', text: `[${block.name}](${block.uri})` };
    case 'resource': {
      const r = block.resource;
      if ('text' in r) return { type: 'text', text: `\n<context uri="${r.uri}">\n${r.text}\n</context>\n` };
      return { type: 'file', mimeType: r.mimeType ?? 'application/octet-stream', data: r.blob, name: r.uri };
    }
    default:
      return undefined;
  }
}
