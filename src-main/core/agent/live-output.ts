// A running command's output for the window's card, as plain completed lines: decoded
// like a terminal shows them, batched (at most one event per interval) and bounded (only
// the end of a burst is sent), so a chatty command cannot flood the event stream.

import { TerminalTextDecoder } from '../text/ansi';

export interface LiveOutput {
  push(chunk: string): void;
  /** Stops: what is still pending is dropped (the tool's result follows). */
  close(): void;
}

export function liveOutput(emit: (text: string) => void, intervalMs = 300, maxChars = 4000): LiveOutput {
  const decoder = new TerminalTextDecoder();
  let pending = '';
  let timer: ReturnType<typeof setTimeout> | null = null;
  let closed = false;
  const flush = (): void => {
    timer = null;
    if (closed || pending === '') return;
    const text = pending;
    pending = '';
    emit(text);
  };
  return {
    push(chunk) {
      if (closed) return;
      const lines = decoder.push(chunk);
      if (lines === '') return;
      pending = (pending + lines).slice(-maxChars);
      timer ??= setTimeout(flush, intervalMs);
    },
    close() {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      pending = '';
    },
  };
}
