// Settings › Approvals › Rules, in order (the first that matches decides); "always allow" adds here.
// A rule quotes model-written commands and paths: plain text, invisible characters escaped.

import { describeRule, type PermissionRule } from '../lib/rules';
import { useLiveValue } from '../state/use-live-value';
import { IconButton } from './Icon';
import { VisibleText } from './VisibleText';

export function RulesSettings({ rules, onChange }: { rules: PermissionRule[]; onChange(rules: PermissionRule[]): void }): React.JSX.Element {
  const [fromFiles] = useLiveValue('rules.fromFiles', 'extensions.changed');
  return (
    <fieldset className="settings-subsection">
      <legend>Rules</legend>
      <p className="muted small">Checked in order before the defaults (reads allowed; writes, edits, deletes and commands ask).</p>
      {rules.length === 0 ? (
        <p className="muted small">No rules yet. Choosing “Always allow” in an approval adds one here.</p>
      ) : (
        <ul className="rule-list">
          {rules.map((rule, i) => {
            const text = describeRule(rule);
            return (
              <li key={rule.id ?? i} className={`rule rule-${rule.decision}`}>
                <span className="rule-decision">{rule.decision}</span>
                <span className="rule-text">
                  <VisibleText text={text} />
                  {rule.description && rule.description !== text ? (
                    <span className="muted small">
                      {' — '}
                      <VisibleText text={rule.description} />
                    </span>
                  ) : null}
                </span>
                <IconButton icon="trash" aria-label={`Remove rule: ${text}`} title="Remove" onClick={() => onChange(rules.filter((_, j) => j !== i))} />
              </li>
            );
          })}
        </ul>
      )}
      {fromFiles && fromFiles.rules.length > 0 ? (
        <>
          <p className="muted small">From Claude Code&apos;s settings files (change them there): deny and ask rules are checked before the ones above, allow rules after.</p>
          <ul className="rule-list" aria-label="Rules from settings files">
            {fromFiles.rules.map((r) => (
              <li key={`${r.origin}:${r.decision}:${r.rule}`} className={`rule rule-${r.decision}`} aria-label={`${r.decision} ${r.rule} from ${r.origin}`}>
                <span className="rule-decision">{r.decision}</span>
                <span className="rule-text">
                  <VisibleText text={r.rule} />
                  <span className="muted small">
                    {' — '}
                    <VisibleText text={r.origin} />
                  </span>
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {fromFiles?.problems.map((problem) => (
        <p key={problem} className="error-text small">
          <VisibleText text={problem} />
        </p>
      ))}
    </fieldset>
  );
}
