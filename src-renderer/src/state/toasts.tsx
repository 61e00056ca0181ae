// Errors and notes from calls, shown as dismissible toasts instead of crashing anything.

import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';

export interface Toast {
  id: number;
  kind: 'error' | 'info';
  message: string;
}

interface ToastApi {
  toasts: Toast[];
  /** `sticky`: stays until dismissed (a notice the person must not miss). */
  push(message: string, kind?: Toast['kind'], options?: { sticky?: boolean }): void;
  dismiss(id: number): void;
}

const ToastContext = createContext<ToastApi | null>(null);

const AUTO_DISMISS_MS = { error: 12_000, info: 5_000 } as const;
const MAX_TOASTS = 5;

export function ToastProvider({ children }: { children: ReactNode }): React.JSX.Element {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(1);
  const dismiss = useCallback((id: number) => setToasts((list) => list.filter((t) => t.id !== id)), []);
  const push = useCallback(
    (message: string, kind: Toast['kind'] = 'error', options: { sticky?: boolean } = {}) => {
      const id = nextId.current++;
      setToasts((list) => {
        // The same error repeated (e.g. a lost connection) shows once.
        if (list.some((t) => t.message === message && t.kind === kind)) return list;
        return [...list, { id, kind, message }].slice(-MAX_TOASTS);
      });
      if (!options.sticky) setTimeout(() => dismiss(id), AUTO_DISMISS_MS[kind]);
    },
    [dismiss],
  );
  const api = useMemo(() => ({ toasts, push, dismiss }), [toasts, push, dismiss]);
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
