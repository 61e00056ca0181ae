// Files pasted, dropped or picked (Attach files) into the message box, kept by thread while
// the window is open, and why those that could not be attached were not.

import { useRef, useState, type RefObject } from 'react';
import { addFiles, type PendingFile } from '../../lib/pending-files';
import { IconButton } from '../Icon';

type Files = readonly PendingFile[];

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
  /** The files attached before any thread was open go to the thread `key`, which opened. */
  adoptEarly(key: string | null): void;
  /** The files of `key` are being sent; `restore` puts them back if sending failed. */
  clear(key: string | null): void;
  restore(key: string | null, sent: Files): void;
}

const carriesFiles = (event: React.DragEvent): boolean => [...event.dataTransfer.types].includes('Files');

/** `draftOf`: the thread whose box the effects last saw (files attached before any thread follow it). */
export function useAttachments(focusKey: string | null, draftOf: RefObject<string | null>, focusBox: () => void): Attachments {
  /** Files waiting to be sent, by thread ('' before one is open). */
  const [byThread, setByThread] = useState<Readonly<Record<string, Files>>>({});
  const setFiles = (key: string | null, update: (files: Files) => Files): void => setByThread((all) => ({ ...all, [key ?? '']: update(all[key ?? ''] ?? []) }));
  /** Why files just pasted, dropped or picked were not attached. */
  const [problems, setProblems] = useState<string[]>([]);
  const picker = useRef<HTMLInputElement>(null);
  /** Files are being dragged over the box. */
  const [dropping, setDropping] = useState(false);

  const attach = (list: readonly File[], refocus = true): void => {
    const key = focusKey;
    if (list.length > 0) {
      void addFiles(byThread[key ?? ''] ?? [], list).then((added) => {
        // Attached before the first thread opened: they go to the thread that opened meanwhile
        // (the move of early files has already run by then, and would not see these).
        const target = key === null ? draftOf.current : key;
        // Read against the files there were: the ones added meanwhile stay.
        setFiles(target, (now) => [...now, ...added.files.filter((f) => !now.some((n) => n.id === f.id))]);
        setProblems(added.problems);
      });
    }
    if (refocus) focusBox();
  };

  return {
    files: byThread[focusKey ?? ''] ?? [],
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
    adoptEarly: (key) => setByThread(({ '': early = [], ...rest }) => ({ ...rest, [key ?? '']: [...(rest[key ?? ''] ?? []), ...early] })),
    clear: (key) => {
      setFiles(key, () => []);
      setProblems([]);
    },
    restore: (key, sent) => setFiles(key, (now) => [...sent, ...now]),
  };
}
