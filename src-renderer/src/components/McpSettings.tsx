// Settings › MCP servers (SPEC §10): each server with its status, its tools, the tail of its
// log, and enable, edit, remove, `Sign in` and, for a folder's server not trusted, `Trust`
// (McpServerTrust). Unlike the rest of Settings these apply at
// once: they edit the person's mcp.json (a folder's .mcp.json is edited in the folder).

import { useEffect, useId, useRef, useState } from 'react';
import type { McpListDto, McpServerDto, TrustStateDto } from '../../../src-main/app/contract';
import { useApi } from '../state/use-api';
import { useListChange } from '../state/use-list-change';
import { useLiveValue } from '../state/use-live-value';
import { McpServerTrust } from './McpServerTrust';
import { TextField } from './TextField';
import { VisibleText } from './VisibleText';
import { ListSection } from './ListSection';
import { ErrorAlert, ProblemLines } from './ErrorText';

const SOURCE_LABEL = { user: 'your mcp.json', project: "this folder's .mcp.json", cli: '--mcp-config' } as const;

/** The words of a command line (quotes kept together). */
export function commandWords(line: string): string[] {
  return [...line.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]!)));
}

/** A new entry from what the Add form holds: a URL is a remote server, anything else a command line. */
export function entryFromForm(target: string, sandbox: boolean): Record<string, unknown> | string {
  const text = target.trim();
  if (text === '') return 'Enter the command that starts the server, or its URL.';
  if (/^https?:\/\//i.test(text)) return { type: 'http', url: text };
  const [command, ...args] = commandWords(text);
  return { command, args, ...(sandbox ? {} : { sandbox: false }) };
}

export function McpSettings(): React.JSX.Element {
  const api = useApi();
  const [list, set] = useLiveValue('mcp.list', 'mcp.changed');
  const ids = useId();
  const [name, setName] = useState('');
  const [target, setTarget] = useState('');
  const [sandbox, setSandbox] = useState(true);
  const { error, setError, run } = useListChange(set);
  // The folder's trust list: what `Trust` on one of its servers shows and trusts.
  const [trust, setTrust] = useLiveValue('trust.get', 'trust.changed');

  const add = async (): Promise<void> => {
    const entry = entryFromForm(target, sandbox);
    if (typeof entry === 'string') return setError(entry);
    if (name.trim() === '') return setError('Give the server a name.');
    if (await run(() => api.call('mcp.save', { name: name.trim(), entry }))) {
      setName('');
      setTarget('');
      setSandbox(true);
    }
  };

  return (
    <ListSection title="MCP servers" className="mcp-settings" about="Tools, resources and prompts from Model Context Protocol servers. Changes here apply at once." items={list?.servers} empty="No MCP servers yet." after={<>
      <ProblemLines problems={list?.problems} />
      <div className="mcp-add">
        <TextField id={`${ids}-name`} label="Server name" value={name} placeholder="github" onValue={setName} />
        <TextField id={`${ids}-target`} label="Command or URL" className="mono" value={target} placeholder="npx -y @modelcontextprotocol/server-github  or  https://…/mcp" onValue={setTarget} />
        <label className="checkbox">
          <input type="checkbox" checked={sandbox} onChange={(e) => setSandbox(e.target.checked)} /> Run a command in the sandbox
        </label>
        <button type="button" className="btn" onClick={() => void add()}>Add server</button>
      </div>
      <ErrorAlert error={error} />
    </>}>
      {list?.servers.map((server) => (
        <McpServerItem
          key={server.name}
          server={server}
          run={run}
          trustEntry={trust?.untrusted.find((e) => e.kind === 'mcp' && e.key === `mcp:${server.name}`)}
          onTrusted={setTrust}
        />
      ))}
    </ListSection>
  );
}

interface McpServerItemProps {
  server: McpServerDto;
  run(work: () => Promise<McpListDto>): Promise<boolean>;
  /** Its entry in the folder's trust list, when it is a folder's server not trusted. */
  trustEntry: TrustStateDto['untrusted'][number] | undefined;
  onTrusted(state: TrustStateDto): void;
}

function McpServerItem({ server, run, trustEntry, onTrusted }: McpServerItemProps): React.JSX.Element {
  const api = useApi();
  const [editing, setEditing] = useState<string | null>(null);
  const editId = useId();
  const enabled = server.status !== 'disabled';
  // After `Trust server` the question goes: the keyboard goes on to the server's `Enabled`.
  const enabledBox = useRef<HTMLInputElement>(null);
  const justTrusted = useRef(false);
  useEffect(() => {
    if (justTrusted.current && server.status !== 'not-trusted') {
      justTrusted.current = false;
      enabledBox.current?.focus();
    }
  }, [server.status]);
  const trusted = (state: TrustStateDto): void => {
    justTrusted.current = true;
    onTrusted(state);
    // The list now, with the server starting (it does not wait for the start).
    void run(() => api.call('mcp.list', {}));
  };

  const saveEdit = async (): Promise<void> => {
    if (editing === null) return;
    let entry: unknown;
    try {
      entry = JSON.parse(editing);
    } catch (err) {
      await run(() => Promise.reject(new Error(`the entry is not valid JSON (${err instanceof Error ? err.message : String(err)})`)));
      return;
    }
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      await run(() => Promise.reject(new Error('the entry must be a JSON object')));
      return;
    }
    if (await run(() => api.call('mcp.save', { name: server.name, entry: entry as Record<string, unknown> }))) setEditing(null);
  };

  const action = (method: 'mcp.signIn' | 'mcp.restart' | 'mcp.remove', label: string): React.JSX.Element => (
    <button type="button" className="btn btn-small" onClick={() => void run(() => api.call(method, { name: server.name }))}>{label}</button>
  );

  return (
    <li className="mcp-server" aria-label={server.name}>
      <div className="mcp-server-head">
        <strong className="mono">{server.name}</strong>
        <span className="muted small">{server.type}</span>
        <span className={`mcp-status mcp-status-${server.status}`}>{server.statusText}</span>
        {server.sandboxed === false ? <span className="mcp-unsandboxed">not sandboxed</span> : null}
      </div>
      <div className="mono small mcp-target"><VisibleText text={server.target} /></div>
      <div className="muted small">From {SOURCE_LABEL[server.source]}</div>
      {server.error ? <p className="error-text small">{server.error}</p> : null}
      {server.tools.length > 0 ? (
        <details>
          <summary>Tools ({server.tools.length})</summary>
          <ul className="mcp-tools">
            {server.tools.map((tool) => (
              <li key={tool.qualifiedName}>
                <span className="mono">{tool.name}</span>
                {tool.readOnly ? <span className="muted small"> (read-only)</span> : null}
                {tool.description ? <span className="muted small"> — {tool.description}</span> : null}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      {server.log ? (
        <details>
          <summary>Log</summary>
          <pre className="mcp-log">{server.log}</pre>
        </details>
      ) : null}
      {editing !== null ? (
        <div className="field">
          <label htmlFor={editId}>Entry (JSON)</label>
          <textarea id={editId} className="mono" rows={8} value={editing} onChange={(e) => setEditing(e.target.value)} />
          <div className="dialog-actions">
            <button type="button" className="btn" onClick={() => setEditing(null)}>Cancel</button>
            <button type="button" className="btn btn-primary" onClick={() => void saveEdit()}>Save server</button>
          </div>
        </div>
      ) : null}
      <div className="mcp-actions">
        {server.status !== 'not-trusted' ? (
          <label className="checkbox">
            <input ref={enabledBox} type="checkbox" checked={enabled} onChange={(e) => void run(() => api.call('mcp.setEnabled', { name: server.name, enabled: e.target.checked }))} /> Enabled
          </label>
        ) : null}
        {server.status === 'not-trusted' && server.source === 'project' ? <McpServerTrust entry={trustEntry} onTrusted={trusted} /> : null}
        {server.status === 'needs-sign-in' ? action('mcp.signIn', 'Sign in') : null}
        {server.status === 'failed' ? action('mcp.restart', 'Restart') : null}
        {server.source === 'user' && editing === null ? (
          <button type="button" className="btn btn-small" onClick={() => setEditing(JSON.stringify(server.entry, null, 2))}>Edit</button>
        ) : null}
        {server.source === 'user' ? action('mcp.remove', 'Remove') : null}
      </div>
    </li>
  );
}
