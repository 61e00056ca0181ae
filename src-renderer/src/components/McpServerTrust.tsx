// Settings › MCP servers: `Trust` on a folder's server that is not trusted. The same gate as
// the folder's `Trust this folder?` question (SPEC §9): it first shows exactly what would run —
// the trust list's own line for this server (command, arguments, environment, the names of
// the person's variables it expands, sandboxed or not) — and `Trust server` trusts that line
// and nothing else (a change in between trusts nothing and shows the new line). The answer
// comes before the server has started; its status follows in the list.

import { useEffect, useId, useRef, useState } from 'react';
import type { TrustStateDto } from '../../../src-main/app/contract';
import { errorMessage } from '../state/toasts';
import { useApi } from '../state/use-api';
import { capitalized } from '../lib/format';
import { VisibleText } from './VisibleText';

type TrustEntryDto = TrustStateDto['untrusted'][number];

interface McpServerTrustProps {
  /** The trust list's entry for this server (absent while the list loads). */
  entry: TrustEntryDto | undefined;
  /** Told the answer (the new trust state) once trust was recorded. */
  onTrusted(state: TrustStateDto): void;
}

export function McpServerTrust({ entry, onTrusted }: McpServerTrustProps): React.JSX.Element {
  const api = useApi();
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const titleId = useId();
  // The button pressed goes away with each step: the keyboard moves to the next step's own.
  const trustButton = useRef<HTMLButtonElement>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const opened = useRef(false);
  useEffect(() => {
    if (asking) confirmButton.current?.focus();
    else if (opened.current) trustButton.current?.focus();
    opened.current ||= asking;
  }, [asking]);

  const trust = async (shown: TrustEntryDto): Promise<void> => {
    setBusy(true);
    setNote(null);
    try {
      const state = await api.call('trust.grant', { digest: shown.digest, keys: [shown.key] });
      if (state.note !== undefined) setNote(state.note);
      else {
        setAsking(false);
        onTrusted(state);
      }
    } catch (err) {
      setNote(`${capitalized(errorMessage(err))}.`);
    } finally {
      setBusy(false);
    }
  };

  if (!asking) {
    return (
      <button ref={trustButton} type="button" className="btn btn-small" onClick={() => setAsking(true)}>
        Trust
      </button>
    );
  }
  return (
    <div className="mcp-trust" role="group" aria-labelledby={titleId}>
      <p id={titleId} className="small mcp-trust-title">
        Trust this server?
      </p>
      <p className="muted small">This folder&apos;s .mcp.json would start it as follows; nothing else of the folder is trusted.</p>
      {entry ? (
        <p className="mono small mcp-target">
          <VisibleText text={entry.label} />
        </p>
      ) : (
        <p className="muted small">Loading what it runs…</p>
      )}
      {note ? (
        <p className="small" role="status">
          {note}
        </p>
      ) : null}
      <div className="mcp-actions">
        <button type="button" className="btn btn-small" onClick={() => setAsking(false)}>
          Not now
        </button>
        {/* Focus stays here while it is recorded (not disabled: a disabled button drops the keyboard). */}
        <button ref={confirmButton} type="button" className="btn btn-small btn-primary" aria-disabled={busy || !entry} onClick={() => entry && !busy && void trust(entry)}>
          Trust server
        </button>
      </div>
    </div>
  );
}
