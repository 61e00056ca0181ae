// The message box: Enter sends, Shift+Enter adds a line, Esc stops a run; `@` suggests files.
// Files pasted, dropped or picked (Attach files) go with the message. Each thread keeps its
// own unsent draft (the text also across reloads; the files while the window is open).

import type { SandboxPlaceDto } from '../../../src-main/app/contract';
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import { mentionsIn } from '../lib/mention';
import type { PendingFile } from '../lib/pending-files';
import { keyboardIsFree } from '../lib/focus';
import { PendingAttachments } from './AttachedFiles';
import { MessageActions } from './message-box/MessageActions';
import { loadDraft, saveDraft, useDraftUpkeep } from './message-box/draft';
import { useAttachments } from './message-box/use-attachments';
import { useSuggestions } from './message-box/use-suggestions';

interface MessageBoxProps {
  running: boolean;
  /** The run waits for a free run slot. */
  queued?: boolean;
  /** Why sending is impossible right now (shown under the box), or null. */
  disabledReason: string | null;
  onSend(text: string, files: readonly PendingFile[]): Promise<boolean>;
  onStop(): void;
  /** The open thread: the box refocuses and shows that thread's draft when it changes. */
  focusKey: string | null;
  /** Approvals waiting in the conversation (a button leads to the first). */
  pendingApprovals?: number;
  /** Text to put into the box (a message taken back out of the conversation); each new `key` puts it in once. */
  refill?: { text: string; key: number } | null;
  /** The open thread's sandbox (SPEC §18): *Run N candidates…* offers sandboxes of its provider. */
  sandbox?: Pick<SandboxPlaceDto, 'provider' | 'label'> | undefined;
  /** The thread's agent is another one (SPEC §22): it is started while the person types. */
  otherAgent?: boolean;
}

const MAX_ROWS_PX = 240;

// Short enough for one line beside the run's buttons (Review, Stop, Send) at 1024×700: a
// placeholder that wraps scrolls the empty box (the style cuts what still does not fit).
const IDLE_PLACEHOLDER = 'Message the agent — @ to mention a file, / for commands';
const RUNNING_PLACEHOLDER = 'Queued if sent now · Esc stops';
const QUEUED_PLACEHOLDER = 'Run waits for a slot · Esc stops';

export function MessageBox({ running, queued = false, disabledReason, onSend, onStop, focusKey, pendingApprovals = 0, refill = null, sandbox, otherAgent = false }: MessageBoxProps): React.JSX.Element {
  const hintId = useId();
  const textarea = useRef<HTMLTextAreaElement>(null);
  const focusBox = (): void => textarea.current?.focus();
  const [text, setText] = useState(() => loadDraft(focusKey));
  /** The thread whose box the effects last saw (none while the window's first one is made). */
  const draftOf = useRef(focusKey);
  // Where the caret goes once a text set by the box itself is in the page: placed right after
  // the commit, before the next key is handled (a frame later would move it back past keys
  // typed meanwhile).
  const pendingCaret = useRef<number | null>(null);
  const attachments = useAttachments(focusKey, focusBox);
  const files = attachments.files;
  const put = (next: string, caret: number): void => {
    pendingCaret.current = caret;
    setText(next);
    focusBox();
  };
  const suggestions = useSuggestions(text, textarea, put);
  useDraftUpkeep(focusKey, text, files.length > 0, otherAgent, running);

  // While the agent works a message can still be sent: it is queued until the current step ends.
  const hasMessage = text.trim() !== '' || files.length > 0;
  const canSend = disabledReason === null && hasMessage;

  // Switching threads: keep this thread's draft, show the other's. What was typed before any
  // thread was open (the first one is still being created) belongs to the thread that opens.
  // Done while rendering, so that no render shows one thread with another's text: a key
  // handled before that render's effects have run would otherwise send or save the wrong text.
  const [shownKey, setShownKey] = useState(focusKey);
  if (shownKey !== focusKey) {
    setShownKey(focusKey);
    if (shownKey === null) {
      setText((typed) => (typed !== '' ? typed : loadDraft(focusKey)));
    } else {
      setText(loadDraft(focusKey));
      suggestions.closeMention();
    }
  }
  useEffect(() => {
    // The first thread opening at start-up comes a moment after the window: by then the person
    // may be on another control, which keeps the keyboard. A thread they switch to takes it.
    const starting = draftOf.current === null;
    draftOf.current = focusKey;
    // Not away from what keeps the keyboard on purpose (the offer of modes opened for the person).
    if (document.activeElement?.closest('[data-keeps-focus]')) return;
    if (!starting || keyboardIsFree()) focusBox();
  }, [focusKey]);

  useLayoutEffect(() => {
    const el = textarea.current;
    const caret = pendingCaret.current;
    if (el === null || caret === null) return;
    pendingCaret.current = null;
    el.setSelectionRange(caret, caret);
  });

  // A message taken back out of the conversation comes back here, ready to edit and send again.
  const refilled = useRef(refill?.key ?? 0);
  useEffect(() => {
    if (refill === null || refill.key === refilled.current) return;
    refilled.current = refill.key;
    put(refill.text, refill.text.length);
    suggestions.closeMention();
  }, [refill]);

  // Grow with the text up to a limit.
  useEffect(() => {
    const el = textarea.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, MAX_ROWS_PX)}px`;
  }, [text]);

  /**
   * Enter (or Send) while the box cannot send yet (settings still loading in a window just
   * opened on a new folder, no model): never dropped silently. The message waits in the box,
   * the reason is said, and it goes once the box can send.
   */
  const [waiting, setWaiting] = useState(false);
  useEffect(() => {
    if (!hasMessage) setWaiting(false);
  }, [hasMessage]);
  useEffect(() => {
    if (waiting && disabledReason === null) {
      setWaiting(false);
      void send();
    }
    // `send` is this render's: it reads the text and files the effect saw.
  }, [waiting, disabledReason]);

  const send = async (): Promise<void> => {
    if (!canSend) {
      if (disabledReason !== null && hasMessage) setWaiting(true);
      return;
    }
    const message = text;
    const sentFiles = files;
    const key = focusKey;
    // The stored draft goes now, not with the next render: a box drawn anew meanwhile (a
    // reconnect reloads the window's state) must not bring the sent message back.
    saveDraft(key, '');
    setText('');
    attachments.clear(key);
    suggestions.close();
    const ok = await onSend(message.trim(), sentFiles);
    if (!ok) {
      setText((current) => (current === '' ? message : current));
      attachments.restore(key, sentFiles);
    }
  };

  const onKeyDown = (event: React.KeyboardEvent<HTMLTextAreaElement>): void => {
    if (event.nativeEvent.isComposing || suggestions.onKey(event)) return;
    if (event.key === 'Enter' && !event.shiftKey && !event.altKey && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      void send();
    } else if (event.key === 'Escape' && running) {
      event.preventDefault();
      onStop();
    }
  };

  return (
    <div className="message-box" {...attachments.dropZone}>
      {suggestions.list}
      <PendingAttachments
        paths={mentionsIn(text)}
        onRemove={(path) => {
          setText((current) => current.split(`@${path}`).join(path).replace(/ {2,}/g, ' '));
          focusBox();
        }}
        files={files}
        onRemoveFile={attachments.remove}
      />
      <div className={`message-input${disabledReason ? ' disabled' : ''}`}>
        <textarea
          ref={textarea}
          aria-label="Message"
          data-region-entry=""
          aria-describedby={disabledReason ? hintId : undefined}
          {...suggestions.inputProps}
          placeholder={disabledReason ?? (queued ? QUEUED_PLACEHOLDER : running ? RUNNING_PLACEHOLDER : IDLE_PLACEHOLDER)}
          rows={1}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            suggestions.update(e.target.value, e.target.selectionStart);
          }}
          onSelect={(e) => suggestions.update(e.currentTarget.value, e.currentTarget.selectionStart)}
          onBlur={suggestions.close}
          onKeyDown={onKeyDown}
          onPaste={attachments.onPaste}
        />
        <MessageActions attach={attachments.button} pendingApprovals={pendingApprovals} running={running} canSend={canSend} onStop={onStop} onSend={() => void send()} goal={text} sandbox={sandbox} />
      </div>
      {attachments.problems}
      {disabledReason ? (
        <p id={hintId} className="message-hint" role={waiting ? 'status' : undefined}>
          {waiting ? `Not sent yet: ${disabledReason} It is sent as soon as it can be.` : disabledReason}
        </p>
      ) : null}
    </div>
  );
}
