// The slash commands offered while a message starts with `/` (a listbox driven from the
// textarea, as the @-mention list is): built-ins, skills and MCP prompts.

import { useEffect, useRef } from 'react';
import type { Result } from '../../../src-main/app/contract';
import { mentionOptionId } from './MentionList';

export type CommandInfo = Result<'commands.list'>[number];

const SOURCE_LABEL: Record<CommandInfo['source'], string> = { 'built-in': '', skill: 'skill', mcp: 'MCP prompt' };

interface CommandListProps {
  id: string;
  commands: readonly CommandInfo[];
  active: number;
  onChoose(name: string): void;
  onHover(index: number): void;
}

export function CommandList({ id, commands, active, onChoose, onHover }: CommandListProps): React.JSX.Element {
  const ref = useRef<HTMLUListElement>(null);
  useEffect(() => {
    ref.current?.querySelector<HTMLElement>(`#${CSS.escape(mentionOptionId(id, active))}`)?.scrollIntoView({ block: 'nearest' });
  }, [id, active]);
  return (
    <ul ref={ref} id={id} className="mention-list" role="listbox" aria-label="Commands">
      {commands.map((command, i) => (
        <li
          key={command.name}
          id={mentionOptionId(id, i)}
          role="option"
          aria-selected={i === active}
          className={`mention-option${i === active ? ' active' : ''}`}
          // mousedown keeps focus in the textarea
          onMouseDown={(e) => {
            e.preventDefault();
            onChoose(command.name);
          }}
          onMouseEnter={() => onHover(i)}
        >
          <span className="mention-name">{command.usage}</span>
          <span className="mention-dir">
            {SOURCE_LABEL[command.source] ? `${SOURCE_LABEL[command.source]} · ` : ''}
            {command.description}
          </span>
        </li>
      ))}
    </ul>
  );
}
