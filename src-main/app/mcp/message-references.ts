// `@server:URI` in a person's message attaches that MCP resource after the message, as
// `@path` attaches a file (SPEC §10). Prompts (`/mcp__server__prompt`) are slash commands
// (app/commands/slash-commands.ts).

import { parseResourceMentions } from '../../core/extensions/mcp/resource-mentions';
import type { McpHubApi } from '../../core/extensions/mcp/types';

export const MAX_ATTACHED_RESOURCES = 10;
const RESOURCE_MAX_CHARS = 100_000;

export class McpReferenceError extends Error {}

/** The `@server:URI` mentions naming a server that is there, in order, without repeats. */
export function resourceMentions(text: string, servers: ReadonlySet<string>): { server: string; uri: string }[] {
  const found: { server: string; uri: string }[] = [];
  for (const { server, uri } of parseResourceMentions(text)) {
    if (servers.has(server) && !found.some((f) => f.server === server && f.uri === uri)) found.push({ server, uri });
  }
  return found;
}

/** The `<attached_resource>` blocks of the `@server:URI` resources that `text` mentions. */
export async function resourceAttachments(text: string, hub: McpHubApi, signal?: AbortSignal): Promise<string[]> {
  const connected = new Set(hub.states().filter((s) => s.status === 'connected').map((s) => s.name));
  const blocks: string[] = [];
  for (const { server, uri } of resourceMentions(text, connected).slice(0, MAX_ATTACHED_RESOURCES)) {
    let body: string;
    try {
      const resource = await hub.readResource(server, uri, signal);
      body = resource.text.length > RESOURCE_MAX_CHARS ? `${resource.text.slice(0, RESOURCE_MAX_CHARS)}\n(cut at ${RESOURCE_MAX_CHARS} characters of ${resource.text.length})` : resource.text;
      if (resource.image) body = `${body}${body ? '\n' : ''}(an image, ${resource.image.mimeType}, not attached)`;
    } catch (err) {
      throw new McpReferenceError(`@${server}:${uri} could not be read: ${err instanceof Error ? err.message : String(err)}`);
    }
    blocks.push(`<attached_resource server="${escapeAttribute(server)}" uri="${escapeAttribute(uri)}">\n${body.replace(/\n?$/, '\n')}</attached_resource>`);
  }
  return blocks;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
