// The Memories panel's Proposed list (SPEC §25): each memory a model wrote while untrusted
// content was in its context, waiting for the person: its text, who wrote it in which thread,
// the untrusted sources, and `Approve`, `Edit and approve`, `Reject`.

import { useEffect, useId, useRef, useState } from 'react';
import type { MemoryEntry } from '../../../src-main/app/contract';
import { whileCurrent } from '../lib/while-current';
import { useApi } from '../state/use-api';
import { Spinner } from './Icon';
import { WriterLine, type ThreadTitles } from './MemoryFacts';
import { SourceList } from './MemoryHistory';
import { PathName } from './PathName';

interface ProposedMemoriesProps {
  entries: readonly MemoryEntry[];
  titles: ThreadTitles;
  /** The proposal `Review` was asked for: it takes the keyboard once shown. */
  focus: string | null;
  onAnswered(): void;
}

export function ProposedMemories({ entries, titles, focus, onAnswered }: ProposedMemoriesProps): React.JSX.Element {
  if (entries.length === 0) return <p className="panel-empty muted">No memory waits for your review.</p>;
  return (
    <ul className="memory-proposals" aria-label="Proposed memories">
      {entries.map((entry) => (
        <Proposal key={`${entry.path} ${entry.version ?? ''}`} entry={entry} titles={titles} focused={focus === entry.path} onAnswered={onAnswered} />
      ))}
    </ul>
  );
}

function Proposal({ entry, titles, focused, onAnswered }: { entry: MemoryEntry; titles: ThreadTitles; focused: boolean; onAnswered(): void }): React.JSX.Element {
  const api = useApi();
  const textId = useId();
  const ref = useRef<HTMLLIElement>(null);
  const [text, setText] = useState<string | null>(null);
  const [draft, setDraft] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { path, version } = entry;

  // The proposal's whole text is its version in the history.
  useEffect(
    () => whileCurrent(api.call('memories.history', { path }), (h) => setText(h.versions.find((v) => v.version === version)?.text ?? '')),
    [api, path, version],
  );
  useEffect(() => {
    if (!focused) return;
    ref.current?.scrollIntoView({ block: 'nearest' });
    ref.current?.focus();
  }, [focused]);

  const answer = async (how: 'approve' | 'reject', edited?: string): Promise<void> => {
    setBusy(true);
    const at = { path, ...(version !== undefined ? { version } : {}) };
    const ok = how === 'approve' ? await api.safe('memories.approve', { ...at, ...(edited !== undefined ? { text: edited } : {}) }) : await api.safe('memories.reject', at);
    setBusy(false);
    if (ok) onAnswered();
  };

  return (
    <li ref={ref} className="memory-proposal" aria-label={`Proposed ${path}`} tabIndex={-1}>
      <div className="memory-proposal-head">
        <PathName path={path.replace(/^\/memories\//, '')} className="memory-path" />
        <span className="muted small">
          {version !== undefined ? `v${version} · ` : ''}
          {entry.scope === 'global' ? 'Global' : 'This project'}
        </span>
      </div>
      <WriterLine entry={entry} titles={titles} verb="Proposed" />
      {entry.sources !== undefined && entry.sources.length > 0 ? <SourceList sources={entry.sources} /> : null}
      {draft !== null ? (
        <div className="field">
          <label htmlFor={textId}>Memory text</label>
          <textarea id={textId} className="memory-textarea" value={draft} rows={6} onChange={(e) => setDraft(e.target.value)} autoFocus />
        </div>
      ) : text === null ? (
        <Spinner label="Loading the proposed text" />
      ) : (
        <pre className="memory-text" tabIndex={0}>{text || '(empty)'}</pre>
      )}
      <div className="memory-proposal-actions">
        {draft !== null ? <button type="button" className="btn btn-small" onClick={() => setDraft(null)}>Cancel</button> : null}
        <button type="button" className="btn btn-small btn-primary" disabled={busy} onClick={() => void answer('approve', draft ?? undefined)}>Approve</button>
        {draft !== null ? null : (
          <>
            <button type="button" className="btn btn-small" disabled={busy || text === null} onClick={() => setDraft(text ?? '')}>Edit and approve</button>
            <button type="button" className="btn btn-small btn-danger-quiet" disabled={busy} onClick={() => void answer('reject')}>Reject</button>
          </>
        )}
      </div>
    </li>
  );
}
