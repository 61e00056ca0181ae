import { describe, expect, it } from 'vitest';
import type { McpHubApi, McpPromptInfo, McpServerState } from '../../core/extensions/mcp/types';
import { resourceAttachments, resourceMentions } from './message-references';


/** The two calls these functions make of a hub, recorded (the real hub is exercised in hub.test.ts and the app tests). */
function hubWith(prompts: McpPromptInfo[], resources: Record<string, string>): McpHubApi & { calls: string[] } {
  const calls: string[] = [];
  const state = (name: string): McpServerState => ({ name, status: 'connected', tools: [], log: '' }) as unknown as McpServerState;
  return {
    calls,
    prompts: () => prompts,
    states: () => [state('gh'), state('docs')],
    getPrompt: async (name: string, args: Record<string, string>) => {
      calls.push(`prompt ${name} ${JSON.stringify(args)}`);
      return `Review PR ${args.pr}${args.focus ? ` for ${args.focus}` : ''}`;
    },
    readResource: async (server: string, uri: string) => {
      calls.push(`read ${server} ${uri}`);
      const text = resources[`${server}:${uri}`];
      if (text === undefined) throw new Error('no such resource');
      return { text };
    },
  } as unknown as McpHubApi & { calls: string[] };
}

describe('@server:URI resources', () => {
  it('finds mentions of servers that are there, once each, without trailing punctuation', () => {
    const servers = new Set(['docs']);
    expect(resourceMentions('see @docs:file:///a.md, and @docs:file:///a.md. Not @other:x:y or me@docs:y:z', servers)).toEqual([{ server: 'docs', uri: 'file:///a.md' }]);
  });

  it('attaches each resource', async () => {
    const hub = hubWith([], { 'docs:memo://one': 'first "quoted" <doc>' });
    expect(await resourceAttachments('summarise @docs:memo://one', hub)).toEqual(['<attached_resource server="docs" uri="memo://one">\nfirst "quoted" <doc>\n</attached_resource>']);
  });

  it('fails clearly when a mentioned resource cannot be read', async () => {
    const hub = hubWith([], {});
    await expect(resourceAttachments('look at @docs:memo://missing', hub)).rejects.toThrow('@docs:memo://missing could not be read: no such resource');
  });
});
