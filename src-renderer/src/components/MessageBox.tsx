// The message box: Enter sends, Shift+Enter adds a line, Esc stops a run; `@` suggests files.
// Files pasted, dropped or picked (Attach files) go with the message. Each thread keeps its
// own unsent draft (the text also across reloads; the files while the window is open).

import { RunCandidatesDialog } from './RunCandidatesDialog';
import type { SandboxPlaceDto } from '../../../src-main/app/contract';
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import { applyMention, findMention, mentionsIn, type Mention } from '../lib/mention';
import { addFiles, type PendingFile } from '../lib/pending-files';
import { noteDraft } from '../state/drafts';
import { useApi } from '../state/use-api';
import { whileCurrent } from '../lib/while-current';
import { keyboardIsFree } from '../lib/focus';
import { PendingAttachments } from './AttachedFiles';
import { Icon } from './Icon';
import { CommandList, MentionList, type CommandInfo } from './MentionList';
import { suggestionOptionId } from './SuggestionList';

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

const DRAFT_PREFIX = 'deepdesk.draft.';

function loadDraft(threadId: string | null): string {
  if (threadId === null) return '';
  try {
    return window.localStorage.getItem(DRAFT_PREFIX + threadId) ?? '';
  } catch {
    return '';
  }
}

function saveDraft(threadId: string | null, text: string): void {
  if (threadId === null) return;
  try {
    if (text === '') window.localStorage.removeItem(DRAFT_PREFIX + threadId);
    else window.localStorage.setItem(DRAFT_PREFIX + threadId, text);
  } catch {
    // Storage full or disabled: the draft lives only in this window.
  }
}

function focusFirstApproval(): void {
  const button = document.querySelector<HTMLButtonElement>('[role="log"] [role="group"][aria-label="Approve tool call"] button.btn-primary');
  button?.scrollIntoView({ block: 'nearest' });
  button?.focus();
}

const MAX_ROWS_PX = 240;

// Short enough for one line beside the run's buttons (Review, Stop, Send) at 1024×700: a
// placeholder that wraps scrolls the empty box (the style cuts what still does not fit).
const IDLE_PLACEHOLDER = 'Message the agent — @ to mention a file, / for commands';
const RUNNING_PLACEHOLDER = 'Queued if sent now · Esc stops';
const QUEUED_PLACEHOLDER = 'Run waits for a slot · Esc stops';

export function MessageBox({ running, queued = false, disabledReason, onSend, onStop, focusKey, pendingApprovals = 0, refill = null, sandbox, otherAgent = false }: MessageBoxProps): React.JSX.Element {
  const api = useApi();
  const listId = useId().replace(/:/g, '');
  const hintId = useId();
  const textarea = useRef<HTMLTextAreaElement>(null);
  const [text, setText] = useState(() => loadDraft(focusKey));
  const [runningCandidates, setRunningCandidates] = useState(false);
  /** The thread whose box the effects last saw (files attached before any thread follow it). */
  const draftOf = useRef(focusKey);
  const [mention, setMention] = useState<Mention | null>(null);
  const [options, setOptions] = useState<string[]>([]);
  const [active, setActive] = useState(0);
  const [searching, setSearching] = useState(false);
  /** The command being typed: what follows a `/` that starts the message, while the caret is in that word. */
  const [slash, setSlash] = useState<string | null>(null);
  const [commands, setCommands] = useState<CommandInfo[]>([]);
  /** Files waiting to be sent, by thread ('' before one is open). */
  const [filesByThread, setFilesByThread] = useState<Readonly<Record<string, readonly PendingFile[]>>>({});
  const files = filesByThread[focusKey ?? ''] ?? [];
  const setFiles = (key: string | null, update: (files: readonly PendingFile[]) => readonly PendingFile[]): void =>
    setFilesByThread((all) => ({ ...all, [key ?? '']: update(all[key ?? ''] ?? []) }));
  /** Why files just pasted, dropped or picked were not attached. */
  const [fileProblems, setFileProblems] = useState<string[]>([]);
  const picker = useRef<HTMLInputElement>(null);
  /** Files are being dragged over the box. */
  const [dropping, setDropping] = useState(false);

  // While the agent works a message can still be sent: it is queued until the current step ends.
  const canSend = disabledReason === null && (text.trim() !== '' || files.length > 0);

  const attachFiles = (list: readonly File[]): void => {
    if (list.length === 0) return;
    const key = focusKey;
    void addFiles(filesByThread[key ?? ''] ?? [], list).then((added) => {
      // Attached before the first thread opened: they go to the thread that opened meanwhile
      // (the move of early files has already run by then, and would not see these).
      const target = key === null ? draftOf.current : key;
      // Read against the files there were: the ones added meanwhile stay.
      setFiles(target, (now) => [...now, ...added.files.filter((f) => !now.some((n) => n.id === f.id))]);
      setFileProblems(added.problems);
    });
  };

  // Switching threads: keep this thread's draft, show the other's. What was typed before any
  // thread was open (the first one is still being created) belongs to the thread that opens.
  // Done while rendering, so that no render shows one thread with another's text: a key
  // handled before that render's effects have run would otherwise send or save the wrong text.
  const [shownKey, setShownKey] = useState(focusKey);
  if (shownKey !== focusKey) {
    setShownKey(focusKey);
    if (shownKey === null) {
      setText((typed) => (typed !== '' ? typed : loadDraft(focusKey)));
      setFilesByThread(({ '': early = [], ...rest }) => ({ ...rest, [focusKey ?? '']: [...(rest[focusKey ?? ''] ?? []), ...early] }));
    } else {
      setText(loadDraft(focusKey));
      setMention(null);
    }
  }
  useEffect(() => {
    // The first thread opening at start-up comes a moment after the window: by then the person
    // may be on another control, which keeps the keyboard. A thread they switch to takes it.
    const starting = draftOf.current === null;
    draftOf.current = focusKey;
    // Not away from what keeps the keyboard on purpose (the offer of modes opened for the person).
    if (document.activeElement?.closest('[data-keeps-focus]')) return;
    if (!starting || keyboardIsFree()) textarea.current?.focus();
  }, [focusKey]);

  useEffect(() => saveDraft(focusKey, text), [text, focusKey]);
  // Another agent's process starts while the person types, so the turn does not wait for it:
  // asked once per thread while it is idle (what fails is left to the turn, which reports it).
  const prepared = useRef(new Set<string>());
  useEffect(() => {
    if (focusKey === null || !otherAgent) return;
    if (running) prepared.current.delete(focusKey);
    else if (text !== '' && !prepared.current.has(focusKey)) {
      prepared.current.add(focusKey);
      void api.call('threads.prepare', { threadId: focusKey }).catch(() => undefined);
    }
  }, [api, otherAgent, running, text, focusKey]);
  useEffect(() => {
    if (focusKey !== null) noteDraft(focusKey, text.trim() !== '' || files.length > 0);
  }, [text, files, focusKey]);

  // Where the caret goes once a text set by the box itself is in the page: placed right after
  // the commit, before the next key is handled (a frame later would move it back past keys
  // typed meanwhile).
  const pendingCaret = useRef<number | null>(null);
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
    pendingCaret.current = refill.text.length;
    setText(refill.text);
    setMention(null);
    textarea.current?.focus();
  }, [refill]);

  // Grow with the text up to a limit.
  useEffect(() => {
    const el = textarea.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, MAX_ROWS_PX)}px`;
  }, [text]);

  // Search files for the mention being typed (debounced; late answers dropped).
  const query = mention?.query;
  useEffect(() => {
    if (query === undefined) return undefined;
    let cancelled = false;
    setSearching(true);
    const timer = setTimeout(() => {
      // Files first, then the MCP servers' resources (`server:URI`, attached when sent).
      Promise.all([api.call('files.search', { query, limit: 20 }), api.call('mcp.resources', { query }).catch(() => [])])
        .then(([paths, resources]) => {
          if (cancelled) return;
          setOptions([...paths, ...resources.slice(0, 10).map((r) => `${r.server}:${r.uri}`)]);
          setActive(0);
        })
        .catch(() => {
          if (!cancelled) setOptions([]);
        })
        .finally(() => {
          if (!cancelled) setSearching(false);
        });
    }, 120);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [api, query]);

  const updateMention = (value: string, caret: number): void => {
    const found = findMention(value, caret);
    setMention((old) => (found === null ? null : old && old.start === found.start && old.query === found.query ? old : found));
    const before = value.slice(0, caret);
    setSlash(/^\/[^\s/]*$/.test(before) ? before.slice(1) : null);
  };

  // The commands there are now (skills and MCP prompts come and go): asked for each time the list opens.
  const slashOpen = slash !== null;
  useEffect(() => {
    if (!slashOpen) return undefined;
    return whileCurrent(api.safe('commands.list', {}), (list) => list && setCommands(list));
  }, [api, slashOpen]);
  // A plugin's command matches on its own name too (`/chang` offers `/release-kit:changelog`).
  const commandOptions = slash === null ? [] : commands.filter((c) => [c.name, c.shortName].some((n) => n?.toLowerCase().startsWith(slash.toLowerCase())));
  useEffect(() => setActive(0), [slash]);

  const chooseCommand = (name: string): void => {
    const el = textarea.current;
    if (!el) return;
    const rest = text.replace(/^\/\S*/, '').replace(/^ /, '');
    const insert = `/${name} `;
    pendingCaret.current = insert.length;
    setText(insert + rest);
    setSlash(null);
    el.focus();
  };

  const choose = (path: string): void => {
    const el = textarea.current;
    if (!mention || !el) return;
    const next = applyMention(text, mention, el.selectionStart, path);
    pendingCaret.current = next.caret;
    setText(next.text);
    setMention(null);
    setOptions([]);
    el.focus();
  };

  /**
   * Enter (or Send) while the box cannot send yet (settings still loading in a window just
   * opened on a new folder, no model): never dropped silently. The message waits in the box,
   * the reason is said, and it goes once the box can send.
   */
  const [waiting, setWaiting] = useState(false);
  const hasMessage = text.trim() !== '' || files.length > 0;
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
    setFiles(key, () => []);
    setFileProblems([]);
    setMention(null);
    setSlash(null);
    const ok = await onSend(message.trim(), sentFiles);
    if (!ok) {
      setText((current) => (current === '' ? message : current));
      setFiles(key, (now) => [...sentFiles, ...now]);
    }
  };

  // Pasted files are attached; text pasted with them (a spreadsheet's cells come with a
  // picture of them) still goes into the box, so nothing pasted is lost.
  const onPaste = (event: React.ClipboardEvent<HTMLTextAreaElement>): void => {
    const pasted = [...event.clipboardData.files];
    if (pasted.length === 0) return;
    if (event.clipboardData.getData('text/plain') === '') event.preventDefault();
    attachFiles(pasted);
  };

  const carriesFiles = (event: React.DragEvent): boolean => [...event.dataTransfer.types].includes('Files');

  const onKeyDown = (event: React.KeyboardEvent<HTMLTextAreaElement>): void => {
    if (event.nativeEvent.isComposing) return;
    if (slash !== null && !mention && commandOptions.length > 0) {
      const count = commandOptions.length;
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        setActive((i) => (event.key === 'ArrowDown' ? (i + 1) % count : (i - 1 + count) % count));
        return;
      }
      const chosen = commandOptions[active];
      // Enter on a command typed in full sends it; otherwise Enter (or Tab) completes it.
      const typedInFull = [chosen?.name, chosen?.shortName].some((n) => n !== undefined && text.trim() === `/${n}`);
      if (chosen !== undefined && !event.shiftKey && (event.key === 'Tab' || (event.key === 'Enter' && !typedInFull))) {
        event.preventDefault();
        chooseCommand(chosen.name);
        return;
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        setSlash(null);
        return;
      }
    }
    if (mention) {
      if (event.key === 'ArrowDown' && options.length > 0) {
        event.preventDefault();
        setActive((i) => (i + 1) % options.length);
        return;
      }
      if (event.key === 'ArrowUp' && options.length > 0) {
        event.preventDefault();
        setActive((i) => (i - 1 + options.length) % options.length);
        return;
      }
      if ((event.key === 'Enter' || event.key === 'Tab') && !event.shiftKey && options[active] !== undefined) {
        event.preventDefault();
        choose(options[active]);
        return;
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        setMention(null);
        return;
      }
    }
    if (event.key === 'Enter' && !event.shiftKey && !event.altKey && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      void send();
      return;
    }
    if (event.key === 'Escape' && running) {
      event.preventDefault();
      onStop();
    }
  };

  const showMentions = mention !== null;
  const showCommands = !showMentions && commandOptions.length > 0;
  const removeAttachment = (path: string): void => {
    setText((current) => current.split(`@${path}`).join(path).replace(/ {2,}/g, ' '));
    textarea.current?.focus();
  };
  return (
    <div
      className="message-box"
      data-dropping={dropping ? '' : undefined}
      onDragOver={(event) => {
        if (!carriesFiles(event)) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
        setDropping(true);
      }}
      onDragLeave={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDropping(false);
      }}
      onDrop={(event) => {
        setDropping(false);
        if (!carriesFiles(event)) return;
        event.preventDefault();
        attachFiles([...event.dataTransfer.files]);
        textarea.current?.focus();
      }}
    >
      {showMentions ? (
        <MentionList id={listId} options={options} active={active} loading={searching} onChoose={choose} onHover={setActive} />
      ) : showCommands ? (
        <CommandList id={listId} commands={commandOptions} active={active} onChoose={chooseCommand} onHover={setActive} />
      ) : null}
      <PendingAttachments
        paths={mentionsIn(text)}
        onRemove={removeAttachment}
        files={files}
        onRemoveFile={(id) => {
          setFiles(focusKey, (now) => now.filter((f) => f.id !== id));
          textarea.current?.focus();
        }}
      />
      <div className={`message-input${disabledReason ? ' disabled' : ''}`}>
        <textarea
          ref={textarea}
          aria-label="Message"
          data-region-entry=""
          aria-describedby={disabledReason ? hintId : undefined}
          aria-autocomplete="list"
          aria-controls={showMentions || showCommands ? listId : undefined}
          aria-activedescendant={
            (showMentions && options[active] !== undefined) || (showCommands && commandOptions[active] !== undefined) ? suggestionOptionId(listId, active) : undefined
          }
          placeholder={disabledReason ?? (queued ? QUEUED_PLACEHOLDER : running ? RUNNING_PLACEHOLDER : IDLE_PLACEHOLDER)}
          rows={1}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            updateMention(e.target.value, e.target.selectionStart);
          }}
          onSelect={(e) => updateMention(e.currentTarget.value, e.currentTarget.selectionStart)}
          onBlur={() => {
            setMention(null);
            setSlash(null);
          }}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
        />
        <div className="message-actions">
          <input
            ref={picker}
            type="file"
            multiple
            hidden
            tabIndex={-1}
            aria-hidden="true"
            onChange={(event) => {
              attachFiles([...(event.target.files ?? [])]);
              event.target.value = '';
              textarea.current?.focus();
            }}
          />
          <button type="button" className="icon-btn" aria-label="Attach files" title="Attach files (or paste or drop them here)" onClick={() => picker.current?.click()}>
            <Icon name="paperclip" size={14} />
          </button>
          {/* An icon beside Attach files: the row keeps its room for Stop and Send at every size. */}
          <button type="button" className="icon-btn" aria-label="Run N candidates…" title="Run N candidates… — the goal as several attempts on worktrees, ranked by evidence" onClick={() => setRunningCandidates(true)}>
            <Icon name="branch" size={14} />
          </button>
          {pendingApprovals > 0 ? (
            <button
              type="button"
              className="btn btn-warn"
              onClick={focusFirstApproval}
              title="Go to the first call waiting for your approval"
              aria-label={pendingApprovals === 1 ? 'Review approval' : `Review approvals (${pendingApprovals})`}
            >
              <Icon name="alert" size={14} />
              Review{pendingApprovals > 1 ? ` (${pendingApprovals})` : ''}
            </button>
          ) : null}
          {running ? (
            <button type="button" className="btn btn-danger" onClick={onStop}>
              <Icon name="stop" size={14} />
              Stop
            </button>
          ) : null}
          <button type="button" className="btn btn-primary" onClick={() => void send()} disabled={!canSend}>
            <Icon name="send" size={14} />
            Send
          </button>
        </div>
      </div>
      {runningCandidates ? <RunCandidatesDialog goal={text} sandbox={sandbox} onClose={() => setRunningCandidates(false)} /> : null}
      {fileProblems.length > 0 ? (
        <p className="message-hint message-problem" role="alert">
          {fileProblems.join(' ')}
        </p>
      ) : null}
      {disabledReason ? (
        <p id={hintId} className="message-hint" role={waiting ? 'status' : undefined}>
          {waiting ? `Not sent yet: ${disabledReason} It is sent as soon as it can be.` : disabledReason}
        </p>
      ) : null}
    </div>
  );
}
