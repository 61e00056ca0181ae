// Settings › Skills and Settings › Hooks (SPEC §11): what is loaded, from which file, and a
// switch for each; skills that could not be loaded are listed with the file and the problem,
// never dropped silently. Like MCP servers, these apply at once.

import { useId } from 'react';
import { useApi } from '../state/use-api';
import { useLiveValue } from '../state/use-live-value';
import { VisibleText } from './VisibleText';
import { ProblemLines } from './ErrorText';

const SOURCE = { user: 'yours', project: 'this folder' } as const;

export function SkillsSettings(): React.JSX.Element {
  const api = useApi();
  const titleId = useId();
  const [list, setList] = useLiveValue('skills.list', 'extensions.changed');
  return (
    <section className="settings-section" aria-labelledby={titleId}>
      <h3 id={titleId} className="settings-section-title">Skills</h3>
      <p className="muted small">Folders with a SKILL.md the agent reads when it needs them; each is also a command, /name.</p>
      {list === null ? <p className="muted small">Loading…</p> : null}
      {list && list.skills.length === 0 ? <p className="muted small">No skills found.</p> : null}
      {list && list.skills.length > 0 ? (
        <ul className="mcp-list">
          {list.skills.map((skill) => (
            <li key={`${skill.source}:${skill.name}`} className="mcp-server" aria-label={skill.name}>
              <div className="mcp-server-head">
                <strong className="mono">{skill.name}</strong>
                <span className="muted small">{SOURCE[skill.source]}</span>
                {skill.onlyAsCommand ? <span className="muted small">only as /{skill.name}</span> : null}
              </div>
              <div className="small"><VisibleText text={skill.description} /></div>
              <div className="mono small muted mcp-target">{skill.file}</div>
              <label className="checkbox">
                <input
                  type="checkbox"
                  checked={skill.enabled}
                  onChange={(e) => void api.safe('skills.setEnabled', { name: skill.name, enabled: e.target.checked }).then((l) => l && setList(l))}
                />{' '}
                Enabled
              </label>
            </li>
          ))}
        </ul>
      ) : null}
      {list?.budgetNote ? <p className="muted small">{list.budgetNote}</p> : null}
      <ProblemLines problems={list?.problems} />
    </section>
  );
}

export function HooksSettings(): React.JSX.Element {
  const api = useApi();
  const titleId = useId();
  const [list, setList] = useLiveValue('hooks.list', 'extensions.changed');
  return (
    <section className="settings-section" aria-labelledby={titleId}>
      <h3 id={titleId} className="settings-section-title">Hooks</h3>
      <p className="muted small">Your commands run at the agent&apos;s events (hooks.json, in Claude Code&apos;s format), as you, outside the sandbox.</p>
      {list === null ? <p className="muted small">Loading…</p> : null}
      {list && list.hooks.length === 0 ? <p className="muted small">No hooks.</p> : null}
      {list && list.hooks.length > 0 ? (
        <ul className="mcp-list">
          {list.hooks.map((hook) => (
            <li key={hook.id} className="mcp-server" aria-label={`${hook.event}${hook.matcher ? ` ${hook.matcher}` : ''}: ${hook.command}`}>
              <div className="mcp-server-head">
                <strong>{hook.event}</strong>
                {hook.matcher ? <span className="mono small">{hook.matcher}</span> : null}
                <span className="muted small">{SOURCE[hook.source]}</span>
              </div>
              <div className="mono small mcp-target"><VisibleText text={hook.command} /></div>
              <div className="mono small muted mcp-target">{hook.file}</div>
              <label className="checkbox">
                <input type="checkbox" checked={hook.enabled} onChange={(e) => void api.safe('hooks.setEnabled', { id: hook.id, enabled: e.target.checked }).then((l) => l && setList(l))} /> Enabled
              </label>
            </li>
          ))}
        </ul>
      ) : null}
      <ProblemLines problems={list?.problems} />
    </section>
  );
}
