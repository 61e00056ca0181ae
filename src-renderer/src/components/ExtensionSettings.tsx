// Settings › Skills and Settings › Hooks (SPEC §11): what is loaded, from which file, and a
// switch for each; skills that could not be loaded are listed with the file and the problem,
// never dropped silently. Like MCP servers, these apply at once.

import { useApi } from '../state/use-api';
import { useLiveValue } from '../state/use-live-value';
import { VisibleText } from './VisibleText';
import { ProblemLines } from './ErrorText';
import { ListSection } from './ListSection';

const SOURCE = { user: 'yours', project: 'this folder' } as const;

export function SkillsSettings(): React.JSX.Element {
  const api = useApi();
  const [list, setList] = useLiveValue('skills.list', 'extensions.changed');
  return (
    <ListSection title="Skills" about="Folders with a SKILL.md the agent reads when it needs them; each is also a command, /name." items={list?.skills} empty="No skills found." after={<>
      {list?.budgetNote ? <p className="muted small">{list.budgetNote}</p> : null}
      <ProblemLines problems={list?.problems} />
    </>}>
      {list?.skills.map((skill) => (
        <li key={`${skill.source}:${skill.name}`} className="mcp-server" aria-label={skill.name}>
          <div className="mcp-server-head">
            <strong className="mono">{skill.name}</strong>
            <span className="muted small">{SOURCE[skill.source]}</span>
            {skill.onlyAsCommand ? <span className="muted small">only as /{skill.name}</span> : null}
          </div>
          <div className="small"><VisibleText text={skill.description} /></div>
          <div className="mono small muted mcp-target">{skill.file}</div>
          <label className="checkbox">
            <input type="checkbox" checked={skill.enabled} onChange={(e) => void api.safe('skills.setEnabled', { name: skill.name, enabled: e.target.checked }).then((l) => l && setList(l))} /> Enabled
          </label>
        </li>
      ))}
    </ListSection>
  );
}

export function HooksSettings(): React.JSX.Element {
  const api = useApi();
  const [list, setList] = useLiveValue('hooks.list', 'extensions.changed');
  return (
    <ListSection title="Hooks" about="Your commands run at the agent's events (hooks.json, in Claude Code's format), as you, outside the sandbox." items={list?.hooks} empty="No hooks." after={<ProblemLines problems={list?.problems} />}>
      {list?.hooks.map((hook) => (
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
    </ListSection>
  );
}
