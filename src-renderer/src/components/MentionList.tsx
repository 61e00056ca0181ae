// The @-mention suggestions under the message box: files, then MCP resources (`server:URI`).

import type { Result } from '../../../src-main/app/contract';
import { SuggestionList, type Suggestion } from './SuggestionList';

/** A file's path starts with `/`; anything else is an MCP resource, `server:URI`. */
function mentionSuggestion(path: string): Suggestion {
  if (!path.startsWith('/')) {
    const colon = path.indexOf(':');
    return { key: path, name: path.slice(colon + 1), detail: `${path.slice(0, colon)} (MCP resource)` };
  }
  const slash = path.lastIndexOf('/');
  return { key: path, name: path.slice(slash + 1), detail: path.slice(0, slash + 1) };
}

export function MentionList(props: { id: string; options: readonly string[]; active: number; loading: boolean; onChoose(path: string): void; onHover(index: number): void }): React.JSX.Element {
  const { id, options, active, loading, onChoose, onHover } = props;
  return (
    <SuggestionList
      id={id}
      label="Files to mention"
      options={options.map(mentionSuggestion)}
      active={active}
      empty={loading ? 'Searching…' : 'No matching files or resources'}
      onChoose={(i) => onChoose(options[i]!)}
      onHover={onHover}
    />
  );
}

export type CommandInfo = Result<'commands.list'>[number];

const SOURCE_LABEL: Record<CommandInfo['source'], string> = { 'built-in': '', skill: 'skill · ', command: 'command · ', mcp: 'MCP prompt · ' };

/** The slash commands offered while a message starts with `/`: built-ins, skills and MCP prompts. */
export function CommandList(props: { id: string; commands: readonly CommandInfo[]; active: number; onChoose(name: string): void; onHover(index: number): void }): React.JSX.Element {
  const { id, commands, active, onChoose, onHover } = props;
  return (
    <SuggestionList
      id={id}
      label="Commands"
      options={commands.map((c) => ({ key: c.name, name: c.usage, detail: `${SOURCE_LABEL[c.source]}${c.description}` }))}
      active={active}
      onChoose={(i) => onChoose(commands[i]!.name)}
      onHover={onHover}
      wrapDetail
    />
  );
}
