// A turn's *Memories used* (SPEC §25): the memories its model requests held (the AGENTS.md
// memories of the prompt, and those a tool result carried), each with the version it was then.

import { Icon } from './Icon';
import { useConversation, useKeptOpen } from './conversation-context';
import { VisibleText } from './VisibleText';

/** `turn`: from 1. Nothing when the turn used no memory. */
export function MemoriesUsed({ turn }: { turn: number }): React.JSX.Element | null {
  const memories = useConversation().memoriesUsed?.get(turn);
  const [open, setOpen] = useKeptOpen(`memories-${turn}`);
  if (memories === undefined || memories.length === 0) return null;
  return (
    <details className="memories-used" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        <Icon name="brain" size={12} />
        Memories used ({memories.length})
      </summary>
      <ul aria-label={`Memories used in turn ${turn}`}>
        {memories.map((m) => (
          <li key={`${m.path} ${m.version}`} className="mono">
            <VisibleText text={`${m.path} (v${m.version})`} />
          </li>
        ))}
      </ul>
    </details>
  );
}
