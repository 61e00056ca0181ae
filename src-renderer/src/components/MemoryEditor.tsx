// One memory: read-only view (with what the panel knows of it) with Edit and Delete, or the
// editor (also for a new memory).

import { useId, useState, type ReactNode } from 'react';
import { Spinner } from './Icon';
import { TextField } from './TextField';
import { VisibleText } from './VisibleText';

interface MemoryEditorProps {
  mode: 'view' | 'edit' | 'new';
  path: string;
  /** undefined while loading. */
  text: string | undefined;
  /** Shown under the path in the view: who wrote it, its use, its stale mark. */
  facts?: ReactNode;
  onEdit(): void;
  onCancel(): void;
  onSave(path: string, text: string): Promise<boolean>;
  onDelete(): void;
}

export function MemoryEditor({ mode, path, text, facts, onEdit, onCancel, onSave, onDelete }: MemoryEditorProps): React.JSX.Element {
  const pathId = useId();
  const textId = useId();
  const [draftPath, setDraftPath] = useState(path);
  const [draft, setDraft] = useState(text ?? '');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);

  if (mode === 'view') {
    return (
      <div className="memory-detail" aria-label={`Memory ${path}`} role="group">
        <div className="memory-detail-head">
          <span className="mono memory-detail-path" title={path}>
            <VisibleText text={path} />
          </span>
          <button type="button" className="btn btn-small" onClick={onEdit} disabled={text === undefined}>
            Edit
          </button>
          <button type="button" className="btn btn-small btn-danger-quiet" onClick={onDelete}>
            Delete
          </button>
        </div>
        {facts}
        {text === undefined ? <Spinner label="Loading the memory" /> : <pre className="memory-text" tabIndex={0}>{text || '(empty)'}</pre>}
      </div>
    );
  }

  const save = async (): Promise<void> => {
    const target = mode === 'new' ? draftPath.trim() : path;
    if (target === '' || target.endsWith('/')) {
      setError('Give the memory a file name, e.g. /memories/notes.md');
      return;
    }
    setSaving(true);
    const ok = await onSave(target, draft);
    setSaving(false);
    if (!ok) setError('Could not save the memory.');
  };

  return (
    <div className="memory-detail editing" role="group" aria-label={mode === 'new' ? 'New memory' : `Editing ${path}`}>
      {mode === 'new' ? (
        <TextField id={pathId} label="Memory path" className="mono" value={draftPath} onValue={setDraftPath} placeholder="/memories/notes.md" autoFocus />
      ) : (
        <span className="mono memory-detail-path" title={path}>
          <VisibleText text={path} />
        </span>
      )}
      <div className="field">
        <label htmlFor={textId}>Memory text</label>
        <textarea id={textId} className="memory-textarea" value={draft} rows={8} onChange={(e) => setDraft(e.target.value)} autoFocus={mode === 'edit'} />
      </div>
      {error ? <p className="error-text">{error}</p> : null}
      <div className="dialog-actions">
        <button type="button" className="btn btn-small" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="btn btn-small btn-primary" onClick={() => void save()} disabled={saving}>
          Save
        </button>
      </div>
    </div>
  );
}
