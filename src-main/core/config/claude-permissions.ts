// The `permissions` of Claude Code's settings files as Deepdesk rules (SPEC §11): the person's
// (`~/.claude/settings.json`) always; a folder's `deny` rules always (they only restrict), its
// `allow` and `ask` rules once trusted (one trust entry each). Deny rules come first, then ask
// rules, before the person's Settings rules; allow rules after them: deny > ask > allow, as
// in Claude Code. Shell commands keep Deepdesk's checks (each part of a compound command must
// be allowed), so a Claude rule never allows more than the same Deepdesk rule would.

import { createHash } from 'node:crypto';
import { relative, sep } from 'node:path';
import { projectClaudeSettingsFiles, readClaudeSettings, userClaudeSettingsFile, type ClaudeSettings, type PermissionListName } from './claude-settings';
import { splitByTrust, type FolderItem, type FolderItems, type IsTrusted } from './kinds/kind';
import { visibleLine } from '../text/visible-line';
import { parseClaudeRule, type ClaudeRule } from './claude-rule';
import type { PermissionRule } from '../agent/permissions/types';

const TOOLS: Readonly<Record<string, readonly string[]>> = {
  Bash: ['execute'],
  Read: ['read_file', 'grep', 'glob', 'ls'],
  Edit: ['edit_file', 'write_file'],
  MultiEdit: ['edit_file'],
  Write: ['write_file'],
  Glob: ['glob'],
  Grep: ['grep'],
  LS: ['ls'],
  Task: ['task'],
  TodoWrite: ['write_todos'],
};

export interface ClaudeRules {
  /** Every rule in force, as written and where it is (for Settings). */
  listed: Array<{ decision: PermissionListName; rule: string; origin: string }>;
  /** Before the person's Settings rules. */
  first: PermissionRule[];
  /** After them, before the defaults. */
  allow: PermissionRule[];
  /** `FILE: …` for what could not be read or has no Deepdesk meaning. */
  problems: string[];
}

/** The rules in force, in order: Claude Code's deny and ask rules, the person's own (Settings), Claude Code's allow rules; the defaults follow. */
export function withClaudeRules(claude: Pick<ClaudeRules, 'first' | 'allow'>, person: readonly PermissionRule[]): PermissionRule[] {
  return [...claude.first, ...person, ...claude.allow];
}

/** One rule of a settings file as a Deepdesk rule, or why it cannot be one. */
export function deepdeskRule(text: string, decision: PermissionListName, origin: string): PermissionRule | { problem: string } {
  const rule = parseClaudeRule(text);
  if ('problem' in rule) return rule;
  const description = `${decision} ${rule.text} (${origin})`;
  const base = { decision, id: `claude:${origin}:${decision}:${rule.text}`, description } as const;
  if (rule.tool.startsWith('mcp__')) {
    const parts = rule.tool.split('__');
    return { ...base, tools: [parts.length === 2 || rule.tool.endsWith('__*') ? `${parts.slice(0, 2).join('__')}__*` : rule.tool] };
  }
  const tools = TOOLS[rule.tool];
  if (tools === undefined) return { problem: `${rule.text}: Deepdesk has no ${rule.tool} tool; the rule does nothing here` };
  if (rule.specifier === undefined) return { ...base, tools: [...tools] };
  if (rule.tool === 'Bash') return { ...base, tools: [...tools], commands: [commandPattern(rule.specifier)] };
  const path = virtualPattern(rule);
  if ('problem' in path) return path;
  return { ...base, tools: [...tools], paths: [path.pattern] };
}

/** `npm test:*` (a prefix) is Deepdesk's `npm test` (its first words); `git * main` is the same pattern. */
function commandPattern(specifier: string): string {
  return specifier.endsWith(':*') ? specifier.slice(0, -2).trim() : specifier.trim();
}

/** A gitignore-style path of the folder as a glob on virtual paths; places outside the folder are not the file tools' anyway. */
function virtualPattern(rule: ClaudeRule): { pattern: string } | { problem: string } {
  const spec = rule.specifier!;
  if (spec.startsWith('//') || spec.startsWith('~')) return { problem: `${rule.text}: names a place outside the folder, where Deepdesk's file tools do not go; the rule does nothing here` };
  const rel = spec.replace(/^\.\//, '').replace(/^\//, '');
  return { pattern: rel.includes('/') ? `/${rel}` : `/**/${rel}` };
}

/** A folder's allow or ask rule: what needs trust. */
export interface FolderRule {
  file: string;
  decision: Exclude<PermissionListName, 'deny'>;
  text: string;
}

/** A folder's allow or ask rule as the trust question lists it. */
function ruleItem(folder: string, rule: FolderRule): FolderItem<FolderRule> {
  const rel = relative(folder, rule.file).split(sep).join('/');
  const { decision, text } = rule;
  return {
    entry: { kind: 'rule', key: `rule:${rel}:${decision}:${text}`, file: rule.file, digest: createHash('sha256').update(`${rel}\0${decision}\0${text}`).digest('hex'), label: visibleLine(`Permission ${decision}: ${text} (${rel})`) },
    value: rule,
  };
}

/** The folder's settings files as read, and their allow and ask rules as trust items (its deny rules need none). */
function readFolderRules(folder: string): { files: ClaudeSettings[]; rules: FolderItems<FolderRule> } {
  const files = projectClaudeSettingsFiles(folder).map(readClaudeSettings);
  const items = files.flatMap((settings) => (['allow', 'ask'] as const).flatMap((decision) => settings.permissions[decision].map((text) => ruleItem(folder, { file: settings.file, decision, text }))));
  return { files, rules: { items, problems: files.flatMap((settings) => settings.problems) } };
}

/** The folder's (real path) allow and ask rules, as the trust question lists them and loadClaudeRules checks them. */
export function folderRuleItems(folder: string): FolderItems<FolderRule> {
  return readFolderRules(folder).rules;
}

export function loadClaudeRules(options: { home: string; folder?: string; isTrusted: IsTrusted }): ClaudeRules {
  const out = { deny: [] as PermissionRule[], ask: [] as PermissionRule[], allow: [] as PermissionRule[] };
  const listed: ClaudeRules['listed'] = [];
  const problems: string[] = [];
  const add = (settings: ClaudeSettings, origin: string, trusted: (decision: PermissionListName, text: string) => boolean): void => {
    const file = settings.file;
    problems.push(...settings.problems);
    for (const decision of ['deny', 'ask', 'allow'] as const) {
      for (const text of settings.permissions[decision]) {
        if (!trusted(decision, text)) continue;
        const rule = deepdeskRule(text, decision, origin);
        if ('problem' in rule) problems.push(`${file}: permissions.${decision}: ${rule.problem}`);
        else {
          out[decision].push(rule);
          listed.push({ decision, rule: text, origin });
        }
      }
    }
  };
  add(readClaudeSettings(userClaudeSettingsFile(options.home)), '~/.claude/settings.json', () => true);
  const folder = options.folder;
  if (folder !== undefined) {
    const read = readFolderRules(folder);
    const trusted = new Set(splitByTrust(read.rules.items, options.isTrusted).trusted.map((rule) => `${rule.file}\0${rule.decision}\0${rule.text}`));
    for (const settings of read.files) {
      const origin = relative(folder, settings.file).split(sep).join('/');
      add(settings, origin, (decision, text) => decision === 'deny' || trusted.has(`${settings.file}\0${decision}\0${text}`));
    }
  }
  return { listed, first: [...out.deny, ...out.ask], allow: out.allow, problems: [...new Set(problems)] };
}
