// What a plugin would load, shown before it is installed or updated (SPEC §15): the §9 list of
// each server, hook, skill, command and agent, and a button that confirms exactly that staged
// copy. Settings › Plugins and the folder's trust question show it alike.

import type { PluginPreviewDto } from '../../../src-main/app/contract';
import { VisibleText } from './VisibleText';

export type PluginVerb = 'Install' | 'Update';

export function pluginContentLines(c: PluginPreviewDto['contents']): string[] {
  return [...c.servers, ...c.hooks, ...c.skills, ...c.commands, ...c.agents];
}

interface PluginPreviewProps {
  preview: PluginPreviewDto;
  verb: PluginVerb;
  busy: boolean;
  onConfirm(): void;
  onCancel(): void;
}

export function PluginPreview({ preview, verb, busy, onConfirm, onCancel }: PluginPreviewProps): React.JSX.Element {
  const upToDate = preview.upToDate && verb === 'Update';
  const lines = pluginContentLines(preview.contents);
  return (
    <div role="group" aria-label={`${verb} ${preview.name}?`} className="plugin-preview">
      {upToDate ? (
        <p className="small">{preview.name} is up to date.</p>
      ) : (
        <>
          <p className="small">
            {verb} {preview.name}
            {preview.version ? ` ${preview.version}` : ''} would load:
          </p>
          <ul className="small mono plugin-parts">
            {(lines.length > 0 ? lines : ['(nothing that runs or loads)']).map((line) => (
              <li key={line}>
                <VisibleText text={line} />
              </li>
            ))}
          </ul>
        </>
      )}
      <div className="row-actions">
        {upToDate ? null : (
          <button type="button" className="btn btn-primary" disabled={busy} onClick={onConfirm}>
            {verb}
          </button>
        )}
        <button type="button" className="btn" onClick={onCancel}>
          {upToDate ? 'Close' : 'Cancel'}
        </button>
      </div>
    </div>
  );
}
