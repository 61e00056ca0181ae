// The Terminal region (SPEC §6, §7): the thread's terminals as tabs. The person's own shell
// (theirs: outside the sandbox) and one view per command the agent ran, each in a pty of its
// own; a command that starts is shown at once, and the person can type into it while it
// runs. The header says whether the agent's commands run sandboxed (a command's tab: whether
// that command did). The person's shell starts when they choose its tab, never by itself.

import { useCallback, useEffect, useRef, useState } from 'react';
import { SANDBOX_PROVIDER_LABELS, SANDBOX_PROVIDER_NAMES, type SandboxProvider, type TerminalInfoDto } from '../../../src-main/app/contract';
import { estimateTerminalSize } from '../lib/terminal-size';
import { useApi } from '../state/use-api';
import type { ModeApi } from '../state/use-mode';
import { useEvent } from '../state/transport-context';
import { Icon } from './Icon';
import { SandboxNotice } from './SandboxNotice';
import { TerminalView } from './TerminalView';
import { useRovingFocus } from './use-roving-focus';
import { SHELL_ASKED } from './use-terminal-focus';

const SHELL = 'shell';

interface TerminalPanelProps {
  threadId: string | null;
  theme: 'dark' | 'light';
  mode: ModeApi;
  /** The panel is expanded. */
  open?: boolean;
}

export function TerminalPanel({ threadId, theme, mode, open = true }: TerminalPanelProps): React.JSX.Element {
  const sandbox = mode.state?.sandbox ?? null;
  // A provider's sandbox (SPEC §18): the agent's commands run there, the person's shell on this computer — each said where.
  const provider = sandbox?.available && (SANDBOX_PROVIDER_NAMES as readonly string[]).includes(sandbox.kind ?? '') ? SANDBOX_PROVIDER_LABELS[sandbox.kind as SandboxProvider] : undefined;
  const api = useApi();
  const [terminals, setTerminals] = useState<TerminalInfoDto[]>([]);
  const [selected, setSelected] = useState<string>(SHELL);
  const [focusOnShow, setFocusOnShow] = useState(false);
  const selectedRef = useRef(selected);
  selectedRef.current = selected;
  const panel = useRef<HTMLElement>(null);
  const tabs = useRef<HTMLDivElement>(null);
  // The tab list is one Tab stop; Left/Right move between its tabs, Enter or Space shows one.
  const onTabsKeyDown = useRovingFocus(tabs, '[role="tab"]', 'horizontal');
  const known = useRef(new Set<string>());
  // The person's shell: started once its tab is shown in the open panel (the person opened the
  // terminal, or chose the tab) — never behind a command's tab the agent's command opened it on.
  const [shellAsked, setShellAsked] = useState(false);
  if (open && selected === SHELL && !shellAsked) setShellAsked(true);

  const refresh = useCallback(
    async (id: string, first: boolean) => {
      const list = await api.call('terminal.list', { threadId: id }).catch(() => null);
      if (!list) return;
      setTerminals(list);
      const fresh = list.filter((t) => t.kind === 'command' && !known.current.has(t.id));
      for (const t of list) known.current.add(t.id);
      const running = [...list].reverse().find((t) => t.kind === 'command' && t.running);
      // A command that started since the last look is shown at once, even if it already ended;
      // on opening a thread, one still running.
      const show = first ? running : fresh.at(-1);
      if (show) {
        setFocusOnShow(panel.current?.contains(document.activeElement) ?? false);
        setSelected(show.id);
      } else {
        setSelected((current) => (list.some((t) => t.id === current) ? current : SHELL));
      }
    },
    [api],
  );

  useEffect(() => {
    known.current = new Set();
    setTerminals([]);
    setSelected(SHELL);
    setShellAsked(false);
    if (threadId !== null) void refresh(threadId, true);
  }, [threadId, refresh]);

  useCollapsedSizeReport(panel, threadId, open);

  // Ctrl+Shift+` is the person asking for the terminal: on the shell's tab, their shell starts.
  useEffect(() => {
    const asked = (): void => {
      if (selectedRef.current !== SHELL) return;
      setFocusOnShow(true);
      setShellAsked(true);
    };
    window.addEventListener(SHELL_ASKED, asked);
    return () => window.removeEventListener(SHELL_ASKED, asked);
  }, []);

  useEvent('terminal.changed', ({ threadId: changed }) => {
    if (changed === threadId) void refresh(changed, false);
  });

  const current = terminals.find((t) => t.id === selected);
  // The shown command's own sandbox (one allowed outside it says so); else the agent's commands'.
  const sandboxed = current?.kind === 'command' && provider === undefined ? current.sandboxed : sandbox?.available;
  const closeView = (id: string): void => {
    if (threadId === null) return;
    void api.safe('terminal.close', { threadId, terminalId: id });
  };

  return (
    <section className="panel terminal-panel" aria-label="Terminal" ref={panel}>
      <div className="panel-head">
        <h2 className="panel-title">
          <Icon name="terminal" size={14} />
          Terminal
        </h2>
        {sandbox ? (
          <span
            className={`sandbox-status ${sandboxed ? 'on' : 'off'}`}
            title={
              provider !== undefined
                ? `The agent's commands run in the ${provider} sandbox, not on this computer`
                : current?.kind === 'command'
                ? `This command ran ${sandboxed ? 'in the sandbox' : 'outside the sandbox'}`
                : sandbox.available
                ? `The agent's commands run in a ${sandbox.kind ?? 'OS'} sandbox`
                : "The agent's commands run without a sandbox and ask first unless a rule allows them"
            }
          >
            {provider !== undefined ? `Runs in ${provider}` : sandboxed ? 'Sandboxed' : 'Not sandboxed'}
          </span>
        ) : null}
        {sandbox && !sandbox.available && sandbox.reason ? <span className="muted small sandbox-reason">{sandbox.reason}</span> : null}
        {threadId === null ? <span className="muted small">Open a thread to use its terminal.</span> : null}
      </div>
      <SandboxNotice mode={mode} />
      {threadId !== null ? (
        <>
          <div className="terminal-tabs" role="tablist" aria-label="Terminals" ref={tabs} onKeyDown={onTabsKeyDown}>
            <button
              type="button"
              role="tab"
              aria-selected={selected === SHELL}
              className={`terminal-tab${selected === SHELL ? ' selected' : ''}`}
              title={
                provider !== undefined
                  ? `Your own shell on this computer, in the worktree folder (not in the ${provider} sandbox). It is yours, and the agent never types into it.`
                  : 'Your own shell in the project folder. It is yours: it runs outside the sandbox, and the agent never types into it.'
              }
              onClick={() => {
                setFocusOnShow(true);
                setSelected(SHELL);
                setShellAsked(true);
              }}
            >
              Your shell <span className="muted">{provider !== undefined ? '· this computer, in the worktree' : '(outside the sandbox)'}</span>
            </button>
            {terminals.map((t) =>
              t.kind === 'command' ? (
                // The close button is the mouse's way; the keyboard's (and a screen reader's) is
                // Delete on the tab itself: a tab list holds tabs only.
                <span key={t.id} role="none" className={`terminal-tab-wrap${selected === t.id ? ' selected' : ''}`}>
                  <button
                    type="button"
                    role="tab"
                    aria-selected={selected === t.id}
                    aria-keyshortcuts={t.running ? undefined : 'Delete'}
                    className={`terminal-tab command ${t.running ? 'running' : t.exitCode === 0 ? 'ok' : 'failed'}`}
                    onKeyDown={(e) => {
                      if (e.key !== 'Delete' || t.running) return;
                      e.preventDefault();
                      closeView(t.id);
                      tabs.current?.querySelector<HTMLElement>('[role="tab"]')?.focus();
                    }}
                    title={`${oneLine(t.command)}\n${t.running ? 'Running' : t.timedOut ? 'Timed out' : t.exitCode === null || t.exitCode === undefined ? 'Stopped' : `Exit code ${t.exitCode}`} · ${provider !== undefined ? `in the ${provider} sandbox` : t.sandboxed ? 'in the sandbox' : 'outside the sandbox'}`}
                    onClick={() => {
                      setFocusOnShow(true);
                      setSelected(t.id);
                    }}
                  >
                    <span className="terminal-tab-state" aria-hidden="true" />
                    <span className="terminal-tab-command mono">$ {oneLine(t.command)}</span>
                  </button>
                  {!t.running ? (
                    <button type="button" className="terminal-tab-close" tabIndex={-1} aria-hidden="true" title={`Close the view of ${oneLine(t.command)} (Delete)`} onClick={() => closeView(t.id)}>
                      <Icon name="x" size={11} />
                    </button>
                  ) : null}
                </span>
              ) : null,
            )}
          </div>
          {selected === SHELL && !shellAsked ? (
            <div className="terminal-host terminal-shell-offer">
              <button
                type="button"
                className="btn btn-small"
                onClick={() => {
                  setFocusOnShow(true);
                  setShellAsked(true);
                }}
              >
                Start your shell
              </button>
            </div>
          ) : (
            <TerminalView
              key={`${threadId}/${selected}`}
              threadId={threadId}
              terminalId={selected}
              theme={theme}
              interactive={selected === SHELL || current?.running === true}
              focus={focusOnShow}
              label={selected === SHELL ? 'Your shell' : `Command: ${oneLine(current?.kind === 'command' ? current.command : '')}`}
            />
          )}
        </>
      ) : (
        <div className="terminal-host" />
      )}
    </section>
  );
}

/**
 * While the panel is collapsed no view has a size, yet the agent's commands start at the
 * size the window reports: it reports what a view as wide as the panel would hold.
 */
function useCollapsedSizeReport(panel: React.RefObject<HTMLElement | null>, threadId: string | null, open: boolean): void {
  const api = useApi();
  useEffect(() => {
    const el = panel.current;
    if (open || threadId === null || !el) return undefined;
    let last = '';
    let timer: ReturnType<typeof setTimeout> | undefined;
    const report = (): void => {
      if (el.clientWidth === 0) return;
      const size = estimateTerminalSize(el.clientWidth);
      const key = `${size.cols}x${size.rows}`;
      if (key === last) return;
      last = key;
      clearTimeout(timer);
      timer = setTimeout(() => void api.call('terminal.resize', { threadId, ...size }).catch(() => undefined), 100);
    };
    const observer = new ResizeObserver(report);
    observer.observe(el);
    report();
    return () => {
      observer.disconnect();
      clearTimeout(timer);
    };
  }, [api, panel, threadId, open]);
}

// eslint-disable-next-line no-control-regex -- control, bidi and invisible characters are what this finds
const HIDDEN = /[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/gu;

/** The command on one line, shortened, with bidi and invisible characters shown (model-controlled text). */
function oneLine(command: string): string {
  const flat = command.replace(/[\t\r\n ]+/g, ' ').trim().replace(HIDDEN, (c) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`);
  return flat.length > 48 ? `${flat.slice(0, 47)}…` : flat;
}
