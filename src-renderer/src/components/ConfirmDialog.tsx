// Asks before something that cannot be undone (deleting a thread or a memory).

import { Modal } from './Modal';

interface ConfirmDialogProps {
  title: string;
  message: string;
  confirmLabel: string;
  onConfirm(): void;
  onCancel(): void;
}

export function ConfirmDialog({ title, message, confirmLabel, onConfirm, onCancel }: ConfirmDialogProps): React.JSX.Element {
  return (
    <Modal label={title} role="alertdialog" onEscape={onCancel} className="confirm-dialog" title={title}>
      <p className="confirm-message">{message}</p>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onCancel} data-autofocus>
          Cancel
        </button>
        <button type="button" className="btn btn-danger" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
