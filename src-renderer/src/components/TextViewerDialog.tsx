// Shows a long text (an archived part of the history, an offloaded tool result).

import { CloseActions, Modal } from './Modal';
import { Spinner } from './Icon';

export interface TextViewerContent {
  title: string;
  path: string;
  /** undefined while loading. */
  text?: string;
  error?: string;
}

export function TextViewerDialog({ content, onClose }: { content: TextViewerContent; onClose(): void }): React.JSX.Element {
  return (
    <Modal label={content.title} onEscape={onClose} className="text-viewer-dialog" title={content.title}>
      <p className="muted mono">{content.path}</p>
      <div className="text-viewer-body" tabIndex={0}>
        {content.error ? (
          <p className="error-text">{content.error}</p>
        ) : content.text === undefined ? (
          <Spinner label="Loading" />
        ) : (
          <pre className="text-viewer-pre" tabIndex={0}>
            {content.text}
          </pre>
        )}
      </div>
      <CloseActions onClose={onClose} />
    </Modal>
  );
}
