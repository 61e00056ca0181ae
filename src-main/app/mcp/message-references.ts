// What a person's message can ask of MCP servers (SPEC §10): `/mcp__server__prompt ARGS`
// at its start runs that prompt and sends what it returns; `@server:URI` attaches that
// resource after the message, as `@path` attaches a file.

import { parseResourceMentions } from '../../core/extensions/mcp/resource-mentions';
import type { McpHubApi, McpPromptInfo } from '../../core/extensions/mcp/types';

export const MAX_ATTACHED_RESOURCES = 10;
const RESOURCE_MAX_CHARS = 100_000;

export class McpReferenceError extends Error {}

/** `text` with a leading MCP prompt command run and the `@server:URI` resources attached. */
export async function expandMcpReferences(text: string, hub: McpHubApi, signal?: AbortSignal): Promise<string> {
  const prompted = await runPromptCommand(text, hub, signal);
  return attachResources(prompted, hub, signal);
}

const PROMPT_COMMAND = /^\/(mcp__[A-Za-z0-9_-]+)(?:\s+([\s\S]*))?$/;

async function runPromptCommand(text: string, hub: McpHubApi, signal?: AbortSignal): Promise<string> {
  const match = PROMPT_COMMAND.exec(text.trim());
  if (!match) return text;
  const name = match[1]!;
  const prompt = hub.prompts().find((p) => p.qualifiedName === name);
  if (!prompt) throw new McpReferenceError(`/${name} is not a prompt of a connected MCP server`);
  const args = promptArguments(prompt, splitWords(match[2] ?? ''));
  return hub.getPrompt(name, args, signal);
}

/** `key=value` words name an argument; the other words fill the prompt's arguments in order (the last takes the rest). */
export function promptArguments(prompt: McpPromptInfo, words: string[]): Record<string, string> {
  const args: Record<string, string> = {};
  const positional: string[] = [];
  const known = new Set(prompt.arguments.map((a) => a.name));
  for (const word of words) {
    const eq = word.indexOf('=');
    if (eq > 0 && known.has(word.slice(0, eq))) args[word.slice(0, eq)] = word.slice(eq + 1);
    else positional.push(word);
  }
  const open = prompt.arguments.filter((a) => !(a.name in args));
  open.forEach((argument, i) => {
    if (i >= positional.length) return;
    args[argument.name] = i === open.length - 1 ? positional.slice(i).join(' ') : positional[i]!;
  });
  if (positional.length > 0 && open.length === 0) throw new McpReferenceError(`/${prompt.qualifiedName} takes no more arguments (got '${positional.join(' ')}')`);
  const missing = prompt.arguments.filter((a) => a.required && !(a.name in args)).map((a) => a.name);
  if (missing.length > 0) {
    throw new McpReferenceError(`/${prompt.qualifiedName} needs ${missing.join(', ')}: /${prompt.qualifiedName} ${prompt.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(' ')}`);
  }
  return args;
}

/** Words split at blanks; "double" or 'single' quotes keep blanks in a word. */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)) {
    words.push(match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : (match[2] ?? match[3]!));
  }
  return words;
}

/** The `@server:URI` mentions naming a server that is there, in order, without repeats. */
export function resourceMentions(text: string, servers: ReadonlySet<string>): { server: string; uri: string }[] {
  const found: { server: string; uri: string }[] = [];
  for (const { server, uri } of parseResourceMentions(text)) {
    if (servers.has(server) && !found.some((f) => f.server === server && f.uri === uri)) found.push({ server, uri });
  }
  return found;
}

async function attachResources(text: string, hub: McpHubApi, signal?: AbortSignal): Promise<string> {
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
  return blocks.length === 0 ? text : `${text}\n\n${blocks.join('\n\n')}`;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
