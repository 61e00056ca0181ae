// Files pasted, dropped or picked (Attach files) into the message box, kept by thread while
// the window is open, and why those that could not be attached were not.

import { useLayoutEffect, useRef, useState } from 'react';
import { addFiles, type PendingFile } from '../../lib/pending-files';
import { IconButton } from '../Icon';

type Files = readonly PendingFile[];
const NO_FILES: Files = [];

interface Attachments {
  /** The open thread's files. */
  files: Files;
  /** The box's props that take dropped files. */
  dropZone: React.HTMLAttributes<HTMLDivElement> & { 'data-dropping'?: '' };
  onPaste(event: React.ClipboardEvent): void;
  /** Attach files, with its hidden picker; why files just attached were not, if any were not. */
  button: React.JSX.Element;
  problems: React.JSX.Element | null;
  remove(id: string): void;
  /** The files of `key` are being sent; `restore` puts them back if sending failed. */
  clear(key: string | null): void;
  restore(key: string | null, sent: Files): void;
}

const carriesFiles = (event: React.DragEvent): boolean => [...event.dataTransfer.types].includes('Files');

export function useAttachments(focusKey: string | null, focusBox: () => void): Attachments {
  /** Files waiting to be sent, by thread ('' before one is open). */
  const [byThread, setByThread] = useState<Readonly<Record<string, Files>>>({});
  const setFiles = (key: string | null, update: (files: Files) => Files): void => setByThread((all) => ({ ...all, [key ?? '']: update(all[key ?? ''] ?? []) }));
  /** Why files just pasted, dropped or picked were not attached. */
  const [problems, setProblems] = useState<string[]>([]);
  const picker = useRef<HTMLInputElement>(null);
  /** Files are being dragged over the box. */
  const [dropping, setDropping] = useState(false);

  // Files attached while no thread was open (the first one, or a new one, still being made)
  // belong to the thread that opens: moved in the commit that shows it, or in the one that
  // shows them if they were read only after it opened. Decided by the state, not by which
  // came first, so no interleaving of the read and the opening loses them.
  const early = byThread[''] ?? NO_FILES;
  useLayoutEffect(() => {
    if (focusKey === null || early.length === 0) return;
    setByThread(({ '': moved = [], ...rest }) => ({ ...rest, [focusKey]: [...(rest[focusKey] ?? []), ...moved] }));
  }, [focusKey, early]);

  const attach = (list: readonly File[], refocus = true): void => {
    const key = focusKey;
    if (list.length > 0) {
      void addFiles(byThread[key ?? ''] ?? [], list).then((added) => {
        // Read against the files there were: the ones added meanwhile stay.
        setFiles(key, (now) => [...now, ...added.files.filter((f) => !now.some((n) => n.id === f.id))]);
        setProblems(added.problems);
      });
    }
    if (refocus) focusBox();
  };

  return {
    // Early files are the open thread's from the render that opens it, before they are moved.
    files: focusKey === null || early.length === 0 ? (byThread[focusKey ?? ''] ?? NO_FILES) : [...(byThread[focusKey] ?? NO_FILES), ...early],
    dropZone: {
      'data-dropping': dropping ? '' : undefined,
      onDragOver: (event) => {
        if (!carriesFiles(event)) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
        setDropping(true);
      },
      onDragLeave: (event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDropping(false);
      },
      onDrop: (event) => {
        setDropping(false);
        if (!carriesFiles(event)) return;
        event.preventDefault();
        attach([...event.dataTransfer.files]);
      },
    },
    // Pasted files are attached; text pasted with them (a spreadsheet's cells come with a
    // picture of them) still goes into the box, so nothing pasted is lost.
    onPaste: (event) => {
      const pasted = [...event.clipboardData.files];
      if (pasted.length === 0) return;
      if (event.clipboardData.getData('text/plain') === '') event.preventDefault();
      attach(pasted, false);
    },
    button: (
      <>
        <input
          ref={picker}
          type="file"
          multiple
          hidden
          tabIndex={-1}
          aria-hidden="true"
          onChange={(event) => {
            attach([...(event.target.files ?? [])]);
            event.target.value = '';
          }}
        />
        <IconButton icon="paperclip" aria-label="Attach files" title="Attach files (or paste or drop them here)" onClick={() => picker.current?.click()} />
      </>
    ),
    problems:
      problems.length > 0 ? (
        <p className="message-hint message-problem" role="alert">
          {problems.join(' ')}
        </p>
      ) : null,
    remove: (id) => {
      setFiles(focusKey, (now) => now.filter((f) => f.id !== id));
      focusBox();
    },
    clear: (key) => {
      setFiles(key, () => []);
      setProblems([]);
    },
    restore: (key, sent) => setFiles(key, (now) => [...sent, ...now]),
  };
}
