// Subagents the `task` tool can start, besides the built-in general-purpose one.

import { useState } from 'react';
import { subagentSchema } from '../../../src-main/app/contract';
import type { Settings } from '../../../src-main/app/contract';
import { useLiveValue } from '../state/use-live-value';
import { Icon, IconButton } from './Icon';
import { VisibleText } from './VisibleText';

type Subagent = Settings['subagents'][number];

const EMPTY = { name: '', description: '', systemPrompt: '', tools: '', model: '' };

/** Where a subagent defined in a Markdown file comes from. */
const FILE_SOURCE = { user: 'yours', project: "the folder's", plugin: "a plugin's" } as const;

export function SubagentSettings({ subagents, onChange }: { subagents: Subagent[]; onChange(list: Subagent[]): void }): React.JSX.Element {
  const [files] = useLiveValue('agents.list', 'extensions.changed');
  const [form, setForm] = useState(EMPTY);
  const [adding, setAdding] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const add = (): void => {
    const tools = form.tools.split(/[\s,]+/).filter(Boolean);
    const candidate = {
      name: form.name.trim(),
      description: form.description.trim(),
      systemPrompt: form.systemPrompt.trim(),
      ...(tools.length ? { tools } : {}),
      ...(form.model.trim() ? { model: form.model.trim() } : {}),
    };
    const parsed = subagentSchema.safeParse(candidate);
    if (!parsed.success) {
      setError(parsed.error.issues.map((i) => `${i.path.join('.') || 'subagent'}: ${i.message}`).join('; '));
      return;
    }
    if (candidate.name === 'general-purpose' || subagents.some((s) => s.name === candidate.name)) {
      setError(`A subagent named ${candidate.name} already exists.`);
      return;
    }
    onChange([...subagents, parsed.data]);
    setForm(EMPTY);
    setAdding(false);
    setError(null);
  };

  const field = (key: keyof typeof EMPTY, label: string, props: { multiline?: boolean; placeholder?: string } = {}) => {
    const id = `subagent-${key}`;
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        {props.multiline ? (
          <textarea id={id} rows={4} value={form[key]} placeholder={props.placeholder} onChange={(e) => setForm({ ...form, [key]: e.target.value })} />
        ) : (
          <input id={id} value={form[key]} placeholder={props.placeholder} onChange={(e) => setForm({ ...form, [key]: e.target.value })} />
        )}
      </div>
    );
  };

  return (
    <fieldset className="settings-section">
      <legend>Subagents</legend>
      <ul className="subagent-list">
        <li className="subagent-entry">
          <span className="mono">general-purpose</span>
          <span className="muted small">built in: the same tools as the agent</span>
        </li>
        {subagents.map((s) => (
          <li key={s.name} className="subagent-entry">
            <span className="mono">{s.name}</span>
            <span className="muted small">
              {s.description}
              {s.tools?.length ? ` · tools: ${s.tools.join(', ')}` : ''}
              {s.model ? ` · ${s.model}` : ''}
            </span>
            <IconButton icon="trash" aria-label={`Remove subagent ${s.name}`} title="Remove" onClick={() => onChange(subagents.filter((x) => x.name !== s.name))} />
          </li>
        ))}
        {(files?.agents ?? []).map((a) => (
          <li key={`${a.source}:${a.name}`} className="subagent-entry" aria-label={`Subagent ${a.name}`}>
            <span className="mono">{a.name}</span>
            <span className="muted small">
              <VisibleText text={a.description} />
              {a.tools?.length ? ` · tools: ${a.tools.join(', ')}` : ''}
              {a.model ? ` · ${a.model}` : ''}
              {` · ${FILE_SOURCE[a.source]}: `}
              <span className="mono">{a.file}</span>
              {a.shadowed ? ' · hidden by the one of the same name above' : ''}
              {a.note ? ` · ${a.note}` : ''}
            </span>
          </li>
        ))}
      </ul>
      {files?.problems.map((problem) => (
        <p key={problem} className="error-text small">
          <VisibleText text={problem} />
        </p>
      ))}
      {adding ? (
        <div className="subagent-form">
          {field('name', 'Name', { placeholder: 'researcher' })}
          {field('description', 'Description', { placeholder: 'When the agent should use it' })}
          {field('systemPrompt', 'System prompt', { multiline: true })}
          {field('tools', 'Tools (comma-separated, empty = all)', { placeholder: 'read_file, grep, glob' })}
          {field('model', 'Model (optional, PROVIDER:MODEL)')}
          {error ? <p className="error-text">{error}</p> : null}
          <div className="dialog-actions">
            <button type="button" className="btn btn-small" onClick={() => { setAdding(false); setError(null); }}>
              Cancel
            </button>
            <button type="button" className="btn btn-small btn-primary" onClick={add}>
              Add subagent
            </button>
          </div>
        </div>
      ) : (
        <button type="button" className="btn btn-small" onClick={() => setAdding(true)}>
          <Icon name="plus" size={14} />
          New subagent
        </button>
      )}
    </fieldset>
  );
}
