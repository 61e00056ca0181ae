// The toast stack (errors from calls and short notes), outside the app root so it stays
// usable while a modal makes the page inert.

import { createPortal } from 'react-dom';
import { useToasts } from '../state/toasts';
import { Icon } from './Icon';

export function Toasts(): React.JSX.Element {
  const { toasts, dismiss } = useToasts();
  return createPortal(
    <div className="toasts" role="region" aria-live="polite" aria-label="Notifications">
      {toasts.map((toast) => (
        <div key={toast.id} className={`toast toast-${toast.kind}`} role={toast.kind === 'error' ? 'alert' : 'status'}>
          <Icon name={toast.kind === 'error' ? 'alert' : 'check'} />
          <span className="toast-message">{toast.message}</span>
          <button type="button" className="icon-btn" aria-label="Dismiss notification" onClick={() => dismiss(toast.id)}>
            <Icon name="x" size={14} />
          </button>
        </div>
      ))}
    </div>,
    document.body,
  );
}
