import { describe, expect, it } from 'vitest';
import type { McpHubApi, McpPromptInfo, McpServerState } from '../../core/extensions/mcp/types';
import { expandMcpReferences, McpReferenceError, promptArguments, resourceMentions, splitWords } from './message-references';

const review: McpPromptInfo = {
  server: 'gh',
  name: 'review',
  qualifiedName: 'mcp__gh__review',
  arguments: [
    { name: 'pr', required: true },
    { name: 'focus', required: false },
  ],
};

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

describe('MCP prompt commands', () => {
  it('fills arguments by name and in order, the last taking the rest', () => {
    expect(promptArguments(review, ['42'])).toEqual({ pr: '42' });
    expect(promptArguments(review, ['42', 'error', 'handling'])).toEqual({ pr: '42', focus: 'error handling' });
    expect(promptArguments(review, ['focus=tests', '7'])).toEqual({ focus: 'tests', pr: '7' });
  });

  it('names the missing required arguments and the usage', () => {
    expect(() => promptArguments(review, [])).toThrow(/needs pr: \/mcp__gh__review <pr> \[focus\]/);
  });

  it('refuses arguments a prompt does not take', () => {
    expect(() => promptArguments({ ...review, arguments: [] }, ['x'])).toThrow(/takes no more arguments/);
  });

  it('keeps quoted words whole', () => {
    expect(splitWords(`a "b c" 'd e' f\\ g "h \\"i\\""`)).toEqual(['a', 'b c', 'd e', 'f\\', 'g', 'h "i"']);
  });

  it('sends what the prompt returns instead of the command', async () => {
    const hub = hubWith([review], {});
    expect(await expandMcpReferences('/mcp__gh__review 42 "security"', hub)).toBe('Review PR 42 for security');
    expect(hub.calls).toEqual(['prompt mcp__gh__review {"pr":"42","focus":"security"}']);
  });

  it('says so for a command no connected server has, and leaves other text alone', async () => {
    const hub = hubWith([review], {});
    await expect(expandMcpReferences('/mcp__gh__nope', hub)).rejects.toBeInstanceOf(McpReferenceError);
    expect(await expandMcpReferences('run /mcp__gh__review 1 please', hub)).toBe('run /mcp__gh__review 1 please');
    expect(hub.calls).toEqual([]);
  });
});

describe('@server:URI resources', () => {
  it('finds mentions of servers that are there, once each, without trailing punctuation', () => {
    const servers = new Set(['docs']);
    expect(resourceMentions('see @docs:file:///a.md, and @docs:file:///a.md. Not @other:x:y or me@docs:y:z', servers)).toEqual([{ server: 'docs', uri: 'file:///a.md' }]);
  });

  it('attaches each resource after the message', async () => {
    const hub = hubWith([], { 'docs:memo://one': 'first "quoted" <doc>' });
    const text = await expandMcpReferences('summarise @docs:memo://one', hub);
    expect(text).toBe('summarise @docs:memo://one\n\n<attached_resource server="docs" uri="memo://one">\nfirst "quoted" <doc>\n</attached_resource>');
  });

  it('fails clearly when a mentioned resource cannot be read', async () => {
    const hub = hubWith([], {});
    await expect(expandMcpReferences('look at @docs:memo://missing', hub)).rejects.toThrow('@docs:memo://missing could not be read: no such resource');
  });
});
