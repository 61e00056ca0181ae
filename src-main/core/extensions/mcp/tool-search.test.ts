import { describe, expect, it } from 'vitest';
import { searchResultText, searchTools } from './tool-search';
import type { McpToolInfo } from './types';

const tool = (server: string, name: string, description: string): McpToolInfo => ({
  server,
  name,
  qualifiedName: `mcp__${server}__${name}`,
  description,
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
  readOnly: false,
});

const tools = [
  tool('github', 'create_issue', 'Create a new issue in a repository'),
  tool('github', 'list_issues', 'List issues of a repository, with filters'),
  tool('github', 'create_pull_request', 'Open a pull request'),
  tool('db', 'query', 'Run a read-only SQL query against the issues database'),
];

describe('searchTools', () => {
  it('ranks whole name words over parts of names over description words', () => {
    expect(searchTools(tools, 'create issue').map((t) => t.name)).toEqual(['create_issue', 'create_pull_request', 'list_issues', 'query']);
    expect(searchTools(tools, 'sql').map((t) => t.name)).toEqual(['query']);
    expect(searchTools(tools, 'issue', 1).map((t) => t.name)).toEqual(['create_issue']);
  });

  it('select: takes exact qualified or bare names, in the order given, unknown ones left out', () => {
    expect(searchTools(tools, 'select:mcp__db__query, create_pull_request,nope').map((t) => t.name)).toEqual(['query', 'create_pull_request']);
  });

  it('nothing for a query without words; the result text says how to try again', () => {
    expect(searchTools(tools, ' -- ')).toEqual([]);
    expect(searchResultText([], 'zzz', 4)).toContain('No MCP tool matches "zzz" (4 are searchable)');
    const text = searchResultText([tools[0]!], 'create', 4);
    expect(text).toContain('## mcp__github__create_issue\nCreate a new issue in a repository\nParameters: {"type":"object"');
    expect(text).toContain('callable from your next step');
  });
});
