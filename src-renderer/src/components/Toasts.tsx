// The notices (errors from calls and short notes), outside the app root so they stay usable
// while a modal makes the page inert. They take a place of their own above the window (the
// page gives way; a modal's backdrop starts below them), so a notice never covers a control.

import { useEffect, useRef } from 'react';
import { createPortal } from 'react-dom';
import { useToasts } from '../state/toasts';
import { ConnectionGone } from './ConnectionGone';
import { Icon, IconButton } from './Icon';

export function Toasts(): React.JSX.Element {
  const { toasts, dismiss } = useToasts();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const region = ref.current;
    if (!region) return undefined;
    const root = document.documentElement;
    const observer = new ResizeObserver(() => root.style.setProperty('--notices-height', `${region.offsetHeight}px`));
    observer.observe(region);
    return () => {
      observer.disconnect();
      root.style.removeProperty('--notices-height');
    };
  }, []);
  return createPortal(
    <div ref={ref} className="toasts" role="region" aria-live="polite" aria-label="Notifications">
      <ConnectionGone />
      {toasts.map((toast) => (
        <div key={toast.id} className={`toast toast-${toast.kind}`} role={toast.kind === 'error' ? 'alert' : 'status'}>
          <Icon name={toast.kind === 'error' ? 'alert' : 'info'} />
          <span className="toast-message" title={toast.kind === 'info' ? toast.message : undefined}>
            {toast.message}
          </span>
          <IconButton icon="x" aria-label="Dismiss notification" onClick={() => dismiss(toast.id)} />
        </div>
      ))}
    </div>,
    document.body,
  );
}
