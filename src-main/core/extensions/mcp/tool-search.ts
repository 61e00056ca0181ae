// Finding deferred MCP tools by name and description (SPEC §10 "Many tools"): words of the
// query scored against each tool's name and description; `select:a,b` names tools exactly.
import type { McpToolInfo } from './types';

export const DEFAULT_SEARCH_LIMIT = 5;
export const MAX_SEARCH_LIMIT = 20;

const words = (text: string): string[] => text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 0);

/** The tools a query finds, best first (at most `limit`). */
export function searchTools(tools: readonly McpToolInfo[], query: string, limit = DEFAULT_SEARCH_LIMIT): McpToolInfo[] {
  const trimmed = query.trim();
  if (trimmed.toLowerCase().startsWith('select:')) {
    const wanted = trimmed.slice('select:'.length).split(',').map((n) => n.trim()).filter((n) => n !== '');
    return wanted.flatMap((name) => {
      const found = tools.find((t) => t.qualifiedName === name) ?? tools.find((t) => t.name === name);
      return found ? [found] : [];
    });
  }
  const terms = [...new Set(words(trimmed))];
  if (terms.length === 0) return [];
  const scored = tools.map((tool, index) => ({ tool, index, score: score(tool, terms) })).filter((s) => s.score > 0);
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.slice(0, Math.max(1, Math.min(limit, MAX_SEARCH_LIMIT))).map((s) => s.tool);
}

function score(tool: McpToolInfo, terms: readonly string[]): number {
  const nameWords = words(`${tool.server} ${tool.name}`);
  const name = tool.qualifiedName.toLowerCase();
  const description = words(tool.description);
  let total = 0;
  for (const term of terms) {
    if (nameWords.includes(term)) total += 4;
    else if (name.includes(term)) total += 2;
    if (description.includes(term)) total += 1;
    else if (term.length >= 4 && description.some((w) => w.startsWith(term))) total += 0.5;
  }
  return total;
}

/** The tool_search result: each match with its description and schema (callable from the next step). */
export function searchResultText(matches: readonly McpToolInfo[], query: string, deferredCount: number): string {
  if (matches.length === 0) {
    return `No MCP tool matches "${query}" (${deferredCount} are searchable). Try other words from what the tool does, or \`select:NAME\` with an exact name.`;
  }
  const blocks = matches.map((t) => `## ${t.qualifiedName}\n${t.description || '(no description)'}\nParameters: ${JSON.stringify(t.inputSchema)}`);
  return `Found ${matches.length} MCP tool${matches.length === 1 ? '' : 's'}; ${matches.length === 1 ? 'it is' : 'they are'} callable from your next step:\n\n${blocks.join('\n\n')}`;
}
