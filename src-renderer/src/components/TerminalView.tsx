// One terminal of a thread in xterm.js: the person's shell or an agent command's view. xterm's
// default DOM renderer keeps the text in the page. Output is acknowledged in batches after
// xterm has written it (flow control); typing goes back as terminal.input.

import '@xterm/xterm/css/xterm.css';
import { FitAddon } from '@xterm/addon-fit';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { Terminal } from '@xterm/xterm';
import { useEffect, useRef, useState } from 'react';
import { AckBatcher } from '../lib/ack-batcher';
import { rememberCellWidth, TERMINAL_FONT } from '../lib/terminal-size';
import { TERMINAL_THEMES as THEMES } from '../lib/terminal-theme';
import { useOpenExternalLink } from '../state/external-links';
import { useApi } from '../state/use-api';
import { useTransport } from '../state/transport-context';


const MAX_PENDING_INPUT = 4096;

interface TerminalViewProps {
  threadId: string;
  terminalId: string;
  theme: 'dark' | 'light';
  /** Typing reaches it (the person's shell, a running command). */
  interactive: boolean;
  /** Take the keyboard focus when shown. */
  focus: boolean;
  label: string;
}

/** While a view is resized, its size is sent at most this often (the last one always). */
const RESIZE_INTERVAL_MS = 100;

export function TerminalView({ threadId, terminalId, theme, interactive, focus, label }: TerminalViewProps): React.JSX.Element {
  const api = useApi();
  const transport = useTransport();
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  // The terminal is made once; its link handler asks the latest opener (links ask first, as the conversation's do).
  const openExternalLink = useOpenExternalLink();
  const openLink = useRef(openExternalLink);
  useEffect(() => {
    openLink.current = openExternalLink;
  });
  const [attachError, setAttachError] = useState<string | null>(null);

  useEffect(() => {
    const el = host.current;
    if (!el) return undefined;
    const terminal = new Terminal({
      fontFamily: TERMINAL_FONT.family,
      fontSize: TERMINAL_FONT.size,
      lineHeight: TERMINAL_FONT.lineHeight,
      cursorBlink: interactive,
      scrollback: 5000,
      allowProposedApi: false,
      disableStdin: !interactive,
      theme: THEMES[theme],
    });
    const fitAddon = new FitAddon();
    terminal.loadAddon(fitAddon);
    terminal.loadAddon(new WebLinksAddon((_event, uri) => openLink.current(uri)));
    terminal.open(el);
    term.current = terminal;
    if (focus) terminal.focus();

    /** Where the attach answer's buffer ends in the terminal's stream; null until it came. */
    let at: number | null = null;
    let disposed = false;
    let pendingInput = '';
    const acks = new AckBatcher((bytes) => void transport.call('terminal.ack', { threadId, terminalId, bytes }).catch(() => undefined));
    /** Chunks that came before the attach answer (it may come after them): what of them is past its buffer is shown after it. */
    const early: Array<{ data: string; end: number }> = [];
    const show = (data: string, end: number): void => {
      // What the buffer holds already is not shown twice.
      const fresh = end <= at! ? '' : data.slice(Math.max(0, data.length - (end - at!)));
      if (fresh === '') acks.add(data.length);
      else terminal.write(fresh, () => acks.add(data.length));
    };
    const offData = transport.on('terminal.data', (payload) => {
      if (payload.threadId !== threadId || payload.terminalId !== terminalId || disposed) return;
      if (at === null) early.push(payload);
      else show(payload.data, payload.end);
    });
    const attached = () => at !== null;
    const send = (data: string): void => void api.safe('terminal.input', { threadId, terminalId, data });
    // Typing before the pty is attached is kept, not lost.
    const typing = terminal.onData((data) => {
      if (attached()) send(data);
      else if (pendingInput.length < MAX_PENDING_INPUT) pendingInput += data;
    });
    // A size goes at once (the agent's next command starts at it, and a message sent right after
    // the panel opens must not race it), then at most one each 100 ms while a drag resizes.
    let resizeTimer: ReturnType<typeof setTimeout> | undefined;
    let lastSizeSent = 0;
    const sendSize = (cols: number, rows: number): void => {
      clearTimeout(resizeTimer);
      const send = (): void => {
        lastSizeSent = Date.now();
        void transport.call('terminal.resize', { threadId, terminalId, cols: Math.max(2, cols), rows: Math.max(1, rows) }).catch(() => undefined);
      };
      const wait = RESIZE_INTERVAL_MS - (Date.now() - lastSizeSent);
      if (wait <= 0) send();
      else resizeTimer = setTimeout(send, wait);
    };
    const resize = terminal.onResize(({ cols, rows }) => sendSize(cols, rows));
    /** Fits the view to its host; false while it is hidden (a collapsed panel has no size to fit to). */
    const fit = (): boolean => {
      if (el.clientWidth === 0 || el.clientHeight === 0) return false;
      fitAddon.fit();
      const screen = el.querySelector<HTMLElement>('.xterm-screen');
      if (screen && terminal.cols > 0) rememberCellWidth(screen.getBoundingClientRect().width / terminal.cols);
      return true;
    };
    let frame = 0;
    const observer = new ResizeObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => void fit());
    });
    observer.observe(el);

    transport
      .call('terminal.attach', { threadId, terminalId })
      .then((answer) => {
        if (disposed) return;
        at = answer.at;
        if (answer.buffer) terminal.write(answer.buffer);
        for (const { data, end } of early.splice(0)) show(data, end);
        if (pendingInput) send(pendingInput);
        pendingInput = '';
        // xterm's own 80×24 is no size of the window's: a hidden view reports nothing.
        if (fit()) sendSize(terminal.cols, terminal.rows);
      })
      .catch((err: unknown) => {
        if (!disposed) setAttachError(err instanceof Error ? err.message : String(err));
      });

    return () => {
      disposed = true;
      cancelAnimationFrame(frame);
      observer.disconnect();
      offData();
      typing.dispose();
      resize.dispose();
      clearTimeout(resizeTimer);
      acks.flush();
      if (attached()) void transport.call('terminal.detach', { threadId, terminalId }).catch(() => undefined);
      terminal.dispose();
      term.current = null;
    };
    // A view is made for one terminal (the panel remounts it, by key, for another); theme,
    // focus and interactivity at mount are read once here and followed by the effects below.
  }, [api, transport, threadId, terminalId]);

  useEffect(() => {
    if (term.current) term.current.options.theme = THEMES[theme];
  }, [theme]);

  useEffect(() => {
    const terminal = term.current;
    if (!terminal) return;
    terminal.options.disableStdin = !interactive;
    terminal.options.cursorBlink = interactive;
  }, [interactive]);

  return (
    <div className="terminal-view" role="tabpanel" aria-label={label}>
      {attachError ? <p className="error-text small terminal-error">{attachError}</p> : null}
      <div className="terminal-host" ref={host} onClick={() => term.current?.focus()} />
    </div>
  );
}
