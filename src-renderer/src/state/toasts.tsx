// Errors and notes from calls, shown as dismissible toasts instead of crashing anything. A toast
// expires unless it needs an answer (`sticky`: then it stays until its Dismiss button is used).

import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';

export interface Toast {
  id: number;
  kind: 'error' | 'info';
  message: string;
  /** The folder it is about: it leaves when another folder opens. */
  folder?: string;
}

export interface PushOptions {
  /** It needs an answer: it stays until dismissed. */
  sticky?: boolean;
  folder?: string;
  /** Told when it leaves (dismissed or expired). */
  onClose?: () => void;
}

interface ToastApi {
  toasts: Toast[];
  push(message: string, kind?: Toast['kind'], options?: PushOptions): void;
  dismiss(id: number): void;
  /** Dismisses the toasts about a folder other than `folder`. */
  keepFolder(folder: string): void;
}

const ToastContext = createContext<ToastApi | null>(null);

const AUTO_DISMISS_MS = { error: 12_000, info: 8_000 } as const;
const MAX_TOASTS = 5;

export function ToastProvider({ children }: { children: ReactNode }): React.JSX.Element {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(1);
  const onClose = useRef(new Map<number, () => void>());
  const closed = useCallback((ids: readonly number[]) => {
    for (const id of ids) {
      onClose.current.get(id)?.();
      onClose.current.delete(id);
    }
  }, []);
  const dismiss = useCallback(
    (id: number) => {
      setToasts((list) => list.filter((t) => t.id !== id));
      closed([id]);
    },
    [closed],
  );
  const keepFolder = useCallback(
    (folder: string) => {
      setToasts((list) => {
        const leaving = list.filter((t) => t.folder !== undefined && t.folder !== folder);
        if (leaving.length === 0) return list;
        queueMicrotask(() => closed(leaving.map((t) => t.id)));
        return list.filter((t) => !leaving.includes(t));
      });
    },
    [closed],
  );
  const push = useCallback(
    (message: string, kind: Toast['kind'] = 'error', options: PushOptions = {}) => {
      const id = nextId.current++;
      if (options.onClose) onClose.current.set(id, options.onClose);
      setToasts((list) => {
        // The same error repeated (e.g. a lost connection) shows once.
        if (list.some((t) => t.message === message && t.kind === kind)) return list;
        return [...list, { id, kind, message, ...(options.folder !== undefined ? { folder: options.folder } : {}) }].slice(-MAX_TOASTS);
      });
      if (!options.sticky) setTimeout(() => dismiss(id), AUTO_DISMISS_MS[kind]);
    },
    [dismiss],
  );
  const api = useMemo(() => ({ toasts, push, dismiss, keepFolder }), [toasts, push, dismiss, keepFolder]);
  return <ToastContext.Provider value={api}>{children}</ToastContext.Provider>;
}

export function useToasts(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error('useToasts outside ToastProvider');
  return api;
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return typeof err === 'string' ? err : 'Something went wrong';
}
