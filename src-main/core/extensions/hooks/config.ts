// Hooks in Claude Code's format (SPEC §11):
// `{"hooks": {"EVENT": [{"matcher": "REGEX", "hooks": [{"type": "command", "command": "…", "timeout": 60}]}]}}`
// from the person's `<data-dir>/hooks.json` and `~/.claude/settings.json` and, once trusted,
// the folder's `.deepdesk/hooks.json`, `.claude/settings.json` and `.claude/settings.local.json`
// (the `hooks` key of each; a settings file's other keys are not hooks). Reading never throws: a file that cannot be used is one problem
// naming it, an entry that cannot be used is one problem naming its field, the rest load.

import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { canonicalJson } from '../../text/canonical-json';
import { parseClaudeRule } from '../../config/claude-rule';
import { userClaudeSettingsFile } from '../../config/claude-settings';
import { splitByTrust, type FolderItems, type IsTrusted } from '../../config/kinds/kind';
import { isObject, readJsonObject } from '../../config/mcp-config';
import { FOLDER_CONFIG_PLACES } from '../../config/places';
import { enabledPluginParts } from '../plugins/store';
import { problemLine, type ConfigProblem } from '../../config/mcp-config-types';
import { hookFiles, pathsStamp, projectHookDigest } from '../../config/entry-files';
import { visibleLine } from '../../text/visible-line';
import { DEFAULT_HOOK_TIMEOUT_MS, HOOK_EVENTS, type HookEntry, type HookEventName } from './types';

export function userHooksFile(dataDir: string): string {
  return join(dataDir, 'hooks.json');
}

/** Every file of the folder that may hold hooks, in the order they run. */
export function projectHooksFiles(folder: string): string[] {
  return FOLDER_CONFIG_PLACES.hook.map((rel) => join(folder, rel));
}

/** Every file of the person's that may hold hooks; `~/.claude/settings.json` only when the home folder is given. */
export function userHooksFiles(dataDir: string, home?: string): string[] {
  return [userHooksFile(dataDir), ...(home !== undefined ? [userClaudeSettingsFile(home)] : [])];
}

/** The hooks of several files, and their problems. */
export function readHooksFiles(files: readonly string[], source: HookEntry['source']): HooksFileRead {
  const reads = files.map((file) => readHooksFile(file, source));
  return { hooks: reads.flatMap((r) => r.hooks), problems: reads.flatMap((r) => r.problems) };
}

const commandSchema = z.object({
  type: z.literal('command'),
  command: z.string().trim().min(1),
  /** Seconds, as Claude Code has it. */
  timeout: z.number().positive().optional(),
  /** A permission rule limiting the handler to the calls it matches (`Bash(git push:*)`). */
  if: z
    .string()
    .optional()
    .refine((rule) => rule === undefined || !('problem' in parseClaudeRule(rule)), { message: 'is not a permission rule such as Bash(git push:*) or Write(*.env)' }),
});

export interface HooksFileRead {
  hooks: HookEntry[];
  problems: ConfigProblem[];
}

/** The commands a hooks file declares, and one problem per file or entry that cannot be used. */
export function readHooksFile(file: string, source: HookEntry['source']): HooksFileRead {
  const parsed = readJsonObject(file, source, '{"hooks": {"PreToolUse": […]}}');
  if ('problem' in parsed) return { hooks: [], problems: parsed.problem ? [parsed.problem] : [] };
  const events = parsed.value.hooks;
  if (events === undefined) return { hooks: [], problems: [] };
  if (!isObject(events)) return { hooks: [], problems: [{ file, field: 'hooks', message: 'must be an object of event names' }] };
  const hooks: HookEntry[] = [];
  const problems: ConfigProblem[] = [];
  for (const [event, groups] of Object.entries(events)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      problems.push({ file, field: `hooks.${event}`, message: `is not an event Deepdesk runs hooks on (${HOOK_EVENTS.join(', ')})` });
      continue;
    }
    if (!Array.isArray(groups)) {
      problems.push({ file, field: `hooks.${event}`, message: 'must be a list of {"matcher", "hooks"} groups' });
      continue;
    }
    groups.forEach((group: unknown, g) => {
      const at = `hooks.${event}[${g}]`;
      if (!isObject(group)) return problems.push({ file, field: at, message: 'must be an object' });
      const matcher = group.matcher;
      if (matcher !== undefined && typeof matcher !== 'string') return problems.push({ file, field: `${at}.matcher`, message: 'must be a string' });
      if (typeof matcher === 'string' && matcher !== '' && matcher !== '*') {
        try {
          new RegExp(matcher);
        } catch (err) {
          return problems.push({ file, field: `${at}.matcher`, message: `is not a regular expression (${err instanceof Error ? err.message : String(err)})` });
        }
      }
      if (!Array.isArray(group.hooks)) return problems.push({ file, field: `${at}.hooks`, message: 'must be a list of {"type": "command", "command": …}' });
      group.hooks.forEach((raw: unknown, h) => {
        const checked = commandSchema.safeParse(raw);
        if (!checked.success) {
          const issue = checked.error.issues[0]!;
          const path = issue.path.length > 0 ? `.${issue.path.join('.')}` : '';
          problems.push({ file, field: `${at}.hooks[${h}]${path}`, message: issue.message });
          return;
        }
        hooks.push({
          id: `${file}#${event}.${g}.${h}`,
          event: event as HookEventName,
          ...(typeof matcher === 'string' && matcher !== '' ? { matcher } : {}),
          command: checked.data.command,
          ...(checked.data.if !== undefined ? { if: checked.data.if } : {}),
          timeoutMs: checked.data.timeout !== undefined ? Math.round(checked.data.timeout * 1000) : DEFAULT_HOOK_TIMEOUT_MS,
          source,
          file,
          digest: hookDigest(matcher, raw),
        });
      });
      return undefined;
    });
  }
  return { hooks, problems };
}

/** sha256 of a hook as written: its group's matcher and its command object (key order does not matter). */
export function hookDigest(matcher: unknown, raw: unknown): string {
  return createHash('sha256').update(canonicalJson({ matcher: matcher ?? null, hook: raw })).digest('hex');
}

/** The trust key of a project hook. */
export function hookTrustKey(hook: Pick<HookEntry, 'event' | 'digest'>): string {
  return `hook:${hook.event}:${hook.digest.slice(0, 16)}`;
}

/** `Hook EVENT [MATCHER] if RULE: COMMAND`, as the trust question and a plugin's install list show it. */
export function hookLabel(hook: HookEntry): string {
  return visibleLine(`Hook ${hook.event}${hook.matcher !== undefined ? ` [${hook.matcher}]` : ''}${hook.if !== undefined ? ` if ${hook.if}` : ''}: ${hook.command}`);
}

/** The folder's (real path) own hooks, as the trust question lists them and loadHooks checks them: the digest holds what each runs from the folder. */
export function projectHookItems(folder: string): FolderItems<HookEntry> {
  const read = readHooksFiles(projectHooksFiles(folder), 'project');
  const items = read.hooks.map((hook) => ({ entry: { kind: 'hook' as const, key: hookTrustKey(hook), file: hook.file, digest: projectHookDigest(folder, hook), label: hookLabel(hook) }, value: hook }));
  return { items, problems: read.problems.map(problemLine) };
}

export interface LoadHooksOptions {
  dataDir: string;
  /** The person's home folder: its `~/.claude/settings.json` hooks load too. */
  home?: string;
  /** The folder (real path); its `.deepdesk/hooks.json` loads only through isTrusted. */
  folder?: string;
  /** Whether a project hook (its key, and its digest with the files it runs) is trusted (the folder's trust gate). */
  isTrusted: IsTrusted;
  /** Hook ids the person turned off (Settings). */
  disabled?: ReadonlySet<string>;
}

export interface LoadedHooks {
  hooks: HookEntry[];
  /** Untrusted project hooks (listed by the trust report, not run). */
  untrusted: HookEntry[];
  /** One line per file or entry that could not be used (`FILE: FIELD: MESSAGE`). */
  problems: string[];
}

/** The person's hooks: their own files' and, each knowing its plugin's folder, their enabled, confirmed plugins'. */
function personHooks(dataDir: string, home: string | undefined): HooksFileRead {
  const person = readHooksFiles(userHooksFiles(dataDir, home), 'user');
  const plugins = enabledPluginParts(dataDir).plugins.map((p) => ({ root: p.root, read: readHooksFiles(p.hooksFiles, 'user') }));
  return {
    hooks: [...person.hooks, ...plugins.flatMap((p) => p.read.hooks.map((hook) => ({ ...hook, pluginRoot: p.root })))],
    problems: [...person.problems, ...plugins.flatMap((p) => p.read.problems)],
  };
}

/**
 * The files inside `folder` that the person's hooks (their own and their plugins') run:
 * `bash $CLAUDE_PROJECT_DIR/scripts/check.sh` runs a file a sandboxed command of the folder
 * could otherwise rewrite, and no trust of the folder's guards it.
 */
export function personHookFolderFiles(folder: string, dataDir: string, home: string | undefined): string[] {
  return [...new Set(personHooks(dataDir, home).hooks.flatMap((hook) => hookFiles(folder, hook)))].sort();
}

/** The person's hooks and the folder's trusted ones, in file order (the person's first). */
export function loadHooks(options: LoadHooksOptions): LoadedHooks {
  const user = personHooks(options.dataDir, options.home);
  // What the hook runs from the folder is part of it (SPEC §9): a changed script is a changed hook.
  const project = options.folder !== undefined ? projectHookItems(options.folder) : { items: [], problems: [] };
  const { trusted, untrusted } = splitByTrust(project.items, options.isTrusted);
  const off = options.disabled ?? new Set<string>();
  return {
    hooks: [...user.hooks, ...trusted].filter((hook) => !off.has(hook.id)),
    untrusted,
    problems: [...user.problems.map(problemLine), ...project.problems],
  };
}

/**
 * loadHooks, read again only when one of the two files or a file a project hook runs changed
 * (identity, size, change times) or `version()` did (a trust or Settings change, here or in
 * another process): cheap enough to call at every event, so an edited hooks.json, a changed
 * script or a revoked trust applies from the next event without a restart.
 */
export function hooksSource(options: LoadHooksOptions & { version?: () => unknown }): () => LoadedHooks {
  let key: string | undefined;
  let loaded: LoadedHooks | undefined;
  const files = [...userHooksFiles(options.dataDir, options.home), ...(options.folder !== undefined ? projectHooksFiles(options.folder) : [])];
  let runs: string[] = [];
  return () => {
    const before = JSON.stringify([pathsStamp(files), pathsStamp(runs), options.version?.() ?? null]);
    if (loaded !== undefined && before === key) return loaded;
    loaded = loadHooks(options);
    const folder = options.folder;
    const now = folder === undefined ? [] : [...new Set([...loaded.hooks, ...loaded.untrusted].filter((h) => h.source === 'project').flatMap((h) => hookFiles(folder, h)))].sort();
    // Stamped as things were before reading them: a change made meanwhile is read next time.
    key = JSON.stringify(now) === JSON.stringify(runs) ? before : undefined;
    runs = now;
    return loaded;
  };
}
