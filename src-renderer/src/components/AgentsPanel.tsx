// Region `Agents` (SPEC §16): every thread working, needing the person, queued, or finished
// and not opened since, across folders: its title, folder or worktree, state in words,
// elapsed time (live while it goes) and cost, and a mark when another thread works in the
// same folder. One Tab stop, arrows between rows; a row (click, Enter, Space) opens the
// thread, in its folder (a candidate's beside the window's, which stays). While the pointer is over the rows they keep their places (a row
// whose state changes would move under it, and the click land on another); they take the
// list's order once it leaves. (What changes is read out by the Agents state, agents-context.)

import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { AGENT_STATE_WORDS, runsInShortText, runsInText, type AgentDto } from '../../../src-main/app/contract';
import { agentElapsedMs, anyGoing } from '../lib/agents';
import { formatCost, formatElapsed } from '../lib/format';
import { keepOrder } from '../lib/stable-order';
import { useAgents } from '../state/agents-context';
import { useNow } from '../state/use-now';
import { Icon, Spinner } from './Icon';
import { SharedFolderMark } from './SharedFolderMark';
import { CandidatesDialog } from './CandidatesDialog';
import { useRovingFocus } from './use-roving-focus';
import '../styles/agents.css';

const STATE_CLASS: Record<AgentDto['state'], string> = {
  working: 'agent-state-working',
  'needs-you': 'badge badge-warn',
  budget: 'badge badge-warn',
  queued: 'badge',
  done: 'badge badge-success',
  failed: 'badge badge-danger',
  stopped: 'badge',
};

/** Read between a row's parts (its name would run them together otherwise). */
function Pause(): React.JSX.Element {
  return <span className="visually-hidden">, </span>;
}

interface AgentsPanelProps {
  /** The thread open in the window (marked current; what is read out leaves it to its conversation). */
  currentId?: string | null;
}

export function AgentsPanel({ currentId = null }: AgentsPanelProps): React.JSX.Element {
  const { agents, error, setCurrentThread, open, notifications, enableNotifications } = useAgents();
  const now = useNow(agents !== null && anyGoing(agents));
  const items = useRef<HTMLUListElement>(null);
  const onItemsKeyDown = useRovingFocus(items, '.agent-select');
  const [pointed, setPointed] = useState(false);
  const [comparing, setComparing] = useState<string | null>(null);
  const shownOrder = useRef<string[]>([]);
  const rows = pointed ? keepOrder(shownOrder.current, agents ?? [], (a) => a.threadId) : (agents ?? []);
  useLayoutEffect(() => {
    shownOrder.current = rows.map((a) => a.threadId);
  });

  useEffect(() => {
    setCurrentThread(currentId);
    return () => setCurrentThread(null);
  }, [currentId, setCurrentThread]);

  return (
    <section className="panel agents-panel" aria-label="Agents">
      <div className="panel-head">
        <h2 className="panel-title">Agents</h2>
        {notifications === 'default' ? (
          <button type="button" className="btn btn-small" title="Tell me when a thread needs me or finishes while this page is not in front" onClick={enableNotifications}>
            <Icon name="bell" size={14} />
            Turn on notifications
          </button>
        ) : null}
      </div>
      {agents === null ? (
        // Empty while the first list comes: the view already has its height.
        <p className="panel-empty muted">{error !== null ? `The agents could not be listed: ${error}` : null}</p>
      ) : agents.length === 0 ? (
        <p className="panel-empty muted">No agents right now.</p>
      ) : null}
      {/* Always there (hidden while empty): the roving focus keeps track of it from the start. */}
      <ul
        className="agent-items"
        ref={items}
        onKeyDown={onItemsKeyDown}
        onPointerEnter={() => setPointed(true)}
        onPointerLeave={() => setPointed(false)}
        hidden={agents === null || agents.length === 0}
      >
        {grouped(rows).map((item) =>
          'set' in item ? (
            <li key={item.set.id} className="agent-item agent-set">
              <span className="agent-set-head">
                <span className="agent-set-title">
                  {item.set.count} candidates: {item.set.goal}
                </span>
                <button type="button" className="btn btn-small" onClick={() => setComparing(item.set.id)}>
                  Compare
                </button>
              </span>
              <ul className="agent-items agent-set-items" aria-label={`Candidates: ${item.set.goal}`}>
                {item.agents.map((agent) => (
                  <AgentRow key={agent.threadId} agent={agent} now={now} current={agent.threadId === currentId} onOpen={() => void open(agent.threadId, true)} />
                ))}
              </ul>
            </li>
          ) : (
            <AgentRow key={item.threadId} agent={item} now={now} current={item.threadId === currentId} onOpen={() => void open(item.threadId)} />
          ),
        )}
      </ul>
      {comparing !== null ? <CandidatesDialog setId={comparing} onClose={() => setComparing(null)} /> : null}
    </section>
  );
}

type CandidateSetDto = NonNullable<AgentDto['candidateSet']>;

/** The rows with each set of candidates (SPEC §21) as one item where its first candidate is, its candidates in their order. */
function grouped(rows: readonly AgentDto[]): Array<AgentDto | { set: CandidateSetDto; agents: AgentDto[] }> {
  const out: Array<AgentDto | { set: CandidateSetDto; agents: AgentDto[] }> = [];
  const sets = new Map<string, { set: CandidateSetDto; agents: AgentDto[] }>();
  for (const agent of rows) {
    const set = agent.candidateSet;
    if (set === undefined) {
      out.push(agent);
      continue;
    }
    let item = sets.get(set.id);
    if (item === undefined) {
      item = { set, agents: [] };
      sets.set(set.id, item);
      out.push(item);
    }
    item.agents.push(agent);
  }
  for (const item of sets.values()) item.agents.sort((a, b) => (a.candidateSet?.index ?? 0) - (b.candidateSet?.index ?? 0));
  return out;
}

/** `provider:model` with the provider giving way first: in a narrow row the model's own name is what tells candidates apart. */
function ModelName({ spec }: { spec: string }): React.JSX.Element {
  const at = spec.indexOf(':');
  const name = at > 0 ? spec.slice(at + 1) : spec;
  return (
    <span className="agent-model mono" style={{ '--model-name': `${Math.min(40, name.length)}ch` } as React.CSSProperties}>
      {at > 0 ? <span className="agent-model-provider">{spec.slice(0, at + 1)}</span> : null}
      <span className="agent-model-name">{name}</span>
    </span>
  );
}

function AgentRow({ agent, now, current, onOpen }: { agent: AgentDto; now: number; current: boolean; onOpen(): void }): React.JSX.Element {
  const title = agent.title.trim() || 'Untitled thread';
  // A candidate is told apart from the others of its set (whose titles are its goal's) by its number and model, as Compare names it.
  const candidate = agent.candidateSet;
  const shownTitle = candidate !== undefined ? `Candidate ${candidate.index + 1}` : title;
  const model = candidate !== undefined && agent.agent === undefined ? (candidate.model ?? "Settings' model") : undefined;
  // A candidate that finished says its goal's state (what Compare ranks by), not its run's `Done` beside it.
  const goalSays = candidate !== undefined && agent.state === 'done' && agent.goalState !== undefined;
  const word = AGENT_STATE_WORDS[agent.state];
  const elapsed = agentElapsedMs(agent, now);
  const cost = formatCost(agent.costUsd);
  const place = agent.worktree !== undefined ? `${agent.worktree.branch}, a worktree of ${agent.worktree.originFolder}` : agent.folder;
  return (
    <li className={`agent-item${current ? ' current' : ''}`}>
      <button type="button" className="agent-select" title={title} aria-current={current ? 'true' : undefined} onClick={onOpen}>
        <span className="agent-line">
          <span className="agent-title">{shownTitle}</span>
          <Pause />
          {goalSays ? null : (
            <span className={`agent-state ${STATE_CLASS[agent.state]}`} title={agent.state === 'failed' && agent.message ? agent.message : undefined}>
              {agent.state === 'working' ? <Spinner /> : null}
              {word}
            </span>
          )}
          {agent.goalState !== undefined ? <span className="badge agent-goal">Goal: {agent.goalState}</span> : null}
          {agent.agent !== undefined ? <span className="badge agent-name">{agent.agent}</span> : null}
          {agent.unreviewed === true ? <span className="badge agent-unreviewed">Unreviewed changes</span> : null}
        </span>
        <span className="agent-meta muted">
          <Pause />
          <span className="agent-place" title={place}>
            {model !== undefined ? (
              <ModelName spec={model} />
            ) : agent.worktree !== undefined ? (
              <>
                <Icon name="branch" size={12} />
                <span className="agent-place-name">{agent.worktree.name}</span>
                <span className="agent-branch mono">{agent.worktree.branch}</span>
              </>
            ) : (
              <span className="agent-place-name">{agent.folderName}</span>
            )}
          </span>
          {agent.sandbox !== undefined ? (
            <>
              <Pause />
              <span className="agent-sandbox" title={runsInText(agent.sandbox)}>
                {runsInShortText(agent.sandbox)}
              </span>
            </>
          ) : null}
          {elapsed !== null ? (
            <>
              <Pause />
              <span className="agent-elapsed">{formatElapsed(elapsed)}</span>
            </>
          ) : null}
          {cost !== null ? (
            <>
              <Pause />
              <span className="agent-cost">{cost}</span>
            </>
          ) : null}
          {agent.sharesFolder ? (
            <>
              <Pause />
              <SharedFolderMark />
            </>
          ) : null}
        </span>
        {agent.message && (agent.state === 'failed' || agent.state === 'done' || agent.state === 'budget') ? (
          <span className={`agent-message${agent.state === 'failed' ? ' error-text' : ''}`} title={agent.message}>
            <Pause />
            {agent.message}
          </span>
        ) : null}
      </button>
    </li>
  );
}
