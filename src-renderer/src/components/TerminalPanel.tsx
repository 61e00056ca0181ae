// The thread's terminal: an xterm.js view of the pty where `execute` runs. xterm's default
// DOM renderer keeps the text in the page. Output is acknowledged in batches after xterm
// has written it (flow control); typing goes back as terminal.input.

import '@xterm/xterm/css/xterm.css';
import { FitAddon } from '@xterm/addon-fit';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { Terminal, type ITheme } from '@xterm/xterm';
import { useEffect, useRef, useState } from 'react';
import { AckBatcher } from '../lib/ack-batcher';
import { useApi } from '../state/use-api';
import { useTransport } from '../state/transport-context';
import { Icon } from './Icon';

const THEMES: Record<'dark' | 'light', ITheme> = {
  dark: {
    background: '#0f1117',
    foreground: '#d7dae0',
    cursor: '#d7dae0',
    selectionBackground: '#3a4a6b',
    black: '#1d1f27', red: '#f07178', green: '#a6d189', yellow: '#e5c07b', blue: '#7aa2f7', magenta: '#c792ea', cyan: '#89ddff', white: '#d7dae0',
    brightBlack: '#5c6370', brightRed: '#ff8b92', brightGreen: '#c3e88d', brightYellow: '#ffd580', brightBlue: '#9ab8ff', brightMagenta: '#ddb6f2', brightCyan: '#a8e8ff', brightWhite: '#ffffff',
  },
  light: {
    background: '#fbfbfc',
    foreground: '#24292f',
    cursor: '#24292f',
    selectionBackground: '#c8d7f5',
    black: '#24292f', red: '#cf222e', green: '#116329', yellow: '#7d5600', blue: '#0550ae', magenta: '#8250df', cyan: '#0a7b83', white: '#6e7781',
    brightBlack: '#57606a', brightRed: '#a40e26', brightGreen: '#1a7f37', brightYellow: '#633c01', brightBlue: '#218bff', brightMagenta: '#a475f9', brightCyan: '#3192aa', brightWhite: '#8c959f',
  },
};

const MAX_PENDING_INPUT = 4096;

export function TerminalPanel({ threadId, theme }: { threadId: string | null; theme: 'dark' | 'light' }): React.JSX.Element {
  const api = useApi();
  const transport = useTransport();
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  const fit = useRef<FitAddon | null>(null);
  const [attachError, setAttachError] = useState<string | null>(null);
  /** Where typing goes once attached; until then it waits in `pendingInput`. */
  const sink = useRef<((data: string) => void) | null>(null);
  const pendingInput = useRef('');

  // One xterm for the panel's lifetime.
  useEffect(() => {
    const el = host.current;
    if (!el) return undefined;
    const terminal = new Terminal({
      fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
      fontSize: 13,
      lineHeight: 1.15,
      cursorBlink: true,
      scrollback: 5000,
      allowProposedApi: false,
      theme: THEMES.dark,
    });
    const fitAddon = new FitAddon();
    terminal.loadAddon(fitAddon);
    terminal.loadAddon(new WebLinksAddon((_event, uri) => window.open(uri, '_blank', 'noopener,noreferrer')));
    terminal.open(el);
    // Typing before the pty is attached (the thread is still opening) is kept, not lost.
    const typing = terminal.onData((data) => {
      if (sink.current) sink.current(data);
      else if (pendingInput.current.length < MAX_PENDING_INPUT) pendingInput.current += data;
    });
    term.current = terminal;
    fit.current = fitAddon;
    let frame = 0;
    const observer = new ResizeObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        if (el.clientWidth > 0 && el.clientHeight > 0) fitAddon.fit();
      });
    });
    observer.observe(el);
    return () => {
      cancelAnimationFrame(frame);
      observer.disconnect();
      typing.dispose();
      terminal.dispose();
      term.current = null;
      fit.current = null;
    };
  }, []);

  useEffect(() => {
    if (term.current) term.current.options.theme = THEMES[theme];
  }, [theme]);

  // Attach to the thread's pty: its buffer first, then live data; input and size go back.
  useEffect(() => {
    const terminal = term.current;
    if (!terminal) return undefined;
    terminal.reset();
    setAttachError(null);
    if (threadId === null) return undefined;
    let attached = false;
    let disposed = false;
    const acks = new AckBatcher((bytes) => void transport.call('terminal.ack', { threadId, bytes }).catch(() => undefined));

    const offData = transport.on('terminal.data', (payload) => {
      // Data from before the attach answer is part of the buffer it returns.
      if (payload.threadId !== threadId || !attached || disposed) return;
      const size = payload.data.length;
      terminal.write(payload.data, () => acks.add(size));
    });
    const send = (data: string): void => void api.safe('terminal.input', { threadId, data });
    let resizeTimer: ReturnType<typeof setTimeout> | undefined;
    const sendSize = (cols: number, rows: number): void => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => void transport.call('terminal.resize', { threadId, cols: Math.max(2, cols), rows: Math.max(1, rows) }).catch(() => undefined), 100);
    };
    const resize = terminal.onResize(({ cols, rows }) => sendSize(cols, rows));

    transport
      .call('terminal.attach', { threadId })
      .then(({ buffer }) => {
        if (disposed) return;
        attached = true;
        if (buffer) terminal.write(buffer);
        sink.current = send;
        if (pendingInput.current) {
          send(pendingInput.current);
          pendingInput.current = '';
        }
        fit.current?.fit();
        sendSize(terminal.cols, terminal.rows);
      })
      .catch((err: unknown) => {
        if (!disposed) setAttachError(err instanceof Error ? err.message : String(err));
      });

    return () => {
      disposed = true;
      sink.current = null;
      pendingInput.current = '';
      offData();
      resize.dispose();
      clearTimeout(resizeTimer);
      acks.flush();
      if (attached) void transport.call('terminal.detach', { threadId }).catch(() => undefined);
    };
  }, [api, transport, threadId]);

  return (
    <section className="panel terminal-panel" aria-label="Terminal">
      <div className="panel-head">
        <h2 className="panel-title">
          <Icon name="terminal" size={14} />
          Terminal
        </h2>
        {attachError ? <span className="error-text small">{attachError}</span> : null}
        {threadId === null ? <span className="muted small">Open a thread to use its terminal.</span> : null}
      </div>
      <div className="terminal-host" ref={host} onClick={() => term.current?.focus()} />
    </section>
  );
}
