// Asks before something that cannot be undone (deleting a thread or a memory), or before
// the window hands something to another program (a link to the browser).

import type { ReactNode } from 'react';
import { Modal } from './Modal';

interface ConfirmDialogProps {
  title: string;
  /** The dialog's accessible name, when it differs from the title. */
  label?: string;
  /** One line of text, or `children` for more. */
  message?: string;
  children?: ReactNode;
  confirmLabel: string;
  /** 'danger' (the default) for what cannot be undone. */
  tone?: 'danger' | 'primary';
  onConfirm(): void;
  onCancel(): void;
}

export function ConfirmDialog({ title, label, message, children, confirmLabel, tone = 'danger', onConfirm, onCancel }: ConfirmDialogProps): React.JSX.Element {
  return (
    <Modal label={label ?? title} role="alertdialog" onEscape={onCancel} className="confirm-dialog" title={title}>
      {message !== undefined ? <p className="confirm-message">{message}</p> : null}
      {children}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onCancel} data-autofocus>
          Cancel
        </button>
        <button type="button" className={`btn btn-${tone}`} onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
