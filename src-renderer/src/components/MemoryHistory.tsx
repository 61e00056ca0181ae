// A memory's versions (SPEC §25 "Every change is a version"), oldest first: what each did, who
// made it (and, for a model's write, the untrusted sources in its context), the diff from the
// version before, and `Restore` to bring a version back (as a new version).

import { useEffect, useState } from 'react';
import type { MemoryVersionInfo } from '../../../src-main/app/contract';
import { formatRelativeTime } from '../lib/format';
import { whileCurrent } from '../lib/while-current';
import { useApi } from '../state/use-api';
import { DiffView } from './DiffView';
import { ErrorAlert } from './ErrorText';
import { Spinner } from './Icon';
import { InThread, writerWords, type ThreadTitles } from './MemoryFacts';
import { VisibleText } from './VisibleText';

const ACTIONS: Record<MemoryVersionInfo['action'], string> = {
  write: 'Written',
  edit: 'Edited',
  delete: 'Deleted',
  approve: 'Approved',
  reject: 'Rejected',
  restore: 'Restored',
  import: 'Imported',
  move: 'Moved here',
};

interface MemoryHistoryProps {
  path: string;
  /** The version the memory is now (it is not offered for restore). */
  current: number | undefined;
  titles: ThreadTitles;
  /** Bumped when the memories changed: the history is read again. */
  version: number;
  onClose(): void;
  onRestored(): void;
}

export function MemoryHistory({ path, current, titles, version, onClose, onRestored }: MemoryHistoryProps): React.JSX.Element {
  const api = useApi();
  const [versions, setVersions] = useState<MemoryVersionInfo[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(
    () =>
      whileCurrent(
        api.call('memories.history', { path }),
        (h) => {
          setVersions(h.versions);
          setError(null);
        },
        (err: unknown) => setError(err instanceof Error ? err.message : String(err)),
      ),
    [api, path, version],
  );

  const restore = async (n: number): Promise<void> => {
    setBusy(true);
    const ok = await api.safe('memories.restore', { path, version: n });
    setBusy(false);
    if (ok) onRestored();
  };

  return (
    <div className="memory-detail memory-history" role="group" aria-label={`History of ${path}`}>
      <div className="memory-detail-head">
        <span className="mono memory-detail-path" title={path}><VisibleText text={path} /></span>
        <button type="button" className="btn btn-small" onClick={onClose}>Close history</button>
      </div>
      <ErrorAlert error={error} />
      {error !== null ? null : versions === null ? <Spinner label="Loading the history" /> : versions.length === 0 ? <p className="muted small">No versions recorded.</p> : null}
      {versions !== null && versions.length > 0 ? (
        <ol className="memory-versions" aria-label="Versions">
          {versions.map((v, i) => {
            const before = versions[i - 1]?.text ?? '';
            const restorable = v.text !== null && v.version !== current && v.status !== 'proposed';
            return (
              <li key={v.version} className="memory-version" aria-label={`Version ${v.version}`}>
                <div className="memory-version-head">
                  <strong>v{v.version}</strong>
                  <span>
                    {ACTIONS[v.action]}
                    {v.status !== 'active' ? ` (${v.status})` : ''}
                  </span>
                  <span className="muted">{formatRelativeTime(v.at)}</span>
                  {restorable ? (
                    <button type="button" className="btn btn-small" disabled={busy} onClick={() => void restore(v.version)}>Restore</button>
                  ) : null}
                </div>
                <p className="memory-fact muted small">
                  by <VisibleText text={writerWords(v.writer)} />
                  <InThread thread={v.thread} titles={titles} />
                </p>
                {v.sources.length > 0 ? <SourceList sources={v.sources} /> : null}
                <DiffView path={path} before={before} after={v.text ?? ''} />
              </li>
            );
          })}
        </ol>
      ) : null}
    </div>
  );
}

/** The untrusted sources a model's write was made beside (`read_file /README.md`). */
export function SourceList({ sources }: { sources: readonly string[] }): React.JSX.Element {
  return (
    <div className="memory-sources small">
      <span className="muted">Untrusted content in its context:</span>
      <ul aria-label="Untrusted sources">
        {sources.map((s) => (
          <li key={s} className="mono"><VisibleText text={s} /></li>
        ))}
      </ul>
    </div>
  );
}
