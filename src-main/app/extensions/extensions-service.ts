// The person's and the folder's skills and hooks for the window (SPEC §11): found through the
// trust gate, listed in Settings with their files and problems, turned off one by one
// (`<data-dir>/extensions.json`), and handed to every thread's agent as they are now.

import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { fieldsShape, JsonFileStore, type JsonFileProblem } from '../../core/config/json-file-store';
import { hooksSource, loadHooks, type LoadedHooks } from '../../core/extensions/hooks/config';
import type { HookEntry } from '../../core/extensions/hooks/types';
import { createSkillCatalog, skillProblemLine, type SkillDiscovery } from '../../core/extensions/skills/discover';
import type { SkillListing } from '../../core/agent/middleware/skills-prompt';
import type { Skill } from '../../core/extensions/skills/types';
import { folderTrust, type FolderTrust } from '../../core/trust/folder-trust';
import { TrustStore } from '../../core/trust/store';
import type { TrustGate } from '../../core/trust/types';
import type { SubagentSpec } from '../../core/agent/middleware/subagents';
import { loadClaudeRules, type ClaudeRules } from '../../core/config/claude-permissions';
import { createDefinitionsCatalog, type DefinitionsCatalog } from '../../core/extensions/definitions/catalog';
import type { CustomCommand } from '../../core/extensions/definitions/commands';
import type { AgentsListDto, HooksListDto, SkillsListDto } from '../contract';

const RELOAD_DEBOUNCE_MS = 150;

const stateShape = fieldsShape({ disabledSkills: z.array(z.string()).optional(), disabledHooks: z.array(z.string()).optional() });
type ExtensionsState = ReturnType<typeof stateShape.check>['value'];

export interface ExtensionsServiceOptions {
  /** The folder's real path. */
  folder: string;
  dataDir: string;
  home?: string;
  /** What the session trusts (trust.json, and `--trust`'s grants). */
  trust: TrustGate;
  onChange(): void;
  onProblem?(problem: JsonFileProblem): void;
}

export class ExtensionsService {
  private readonly state: JsonFileStore<ExtensionsState>;
  private readonly trust: FolderTrust;
  private readonly home: string;
  private readonly definitions: DefinitionsCatalog;
  /** Mutated in place: the skill catalog reads it at every scan. */
  private readonly disabledSkills = new Set<string>();
  private readonly catalog: { current(): SkillDiscovery };
  private loadedHooks: LoadedHooks = { hooks: [], untrusted: [], problems: [] };
  /** Mutated in place: the hooks source reads it at every load. */
  private readonly disabledHooks = new Set<string>();
  /** The hooks as they are at this event: hooks.json, the scripts they run and trust looked at again. */
  private readonly hooksNow: () => LoadedHooks;
  private listing: SkillListing | undefined;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: ExtensionsServiceOptions) {
    this.trust = folderTrust(options.trust, options.folder);
    this.home = options.home ?? homedir();
    this.state = new JsonFileStore({
      path: join(options.dataDir, 'extensions.json'),
      shape: stateShape,
      defaultsText: 'every skill and hook is on again',
      ...(options.onProblem ? { onProblem: options.onProblem } : {}),
    });
    this.syncDisabled();
    this.state.onChange(() => {
      this.syncDisabled();
      this.reload();
    });
    const { isTrusted } = this.trust;
    this.definitions = createDefinitionsCatalog({ dataDir: options.dataDir, home: this.home, folder: options.folder, isTrusted });
    this.catalog = createSkillCatalog({ dataDir: options.dataDir, home: this.home, folder: options.folder, isTrusted, disabled: this.disabledSkills });
    this.hooksNow = hooksSource({
      dataDir: options.dataDir,
      home: this.home,
      folder: options.folder,
      isTrusted,
      disabled: this.disabledHooks,
      // Trust given or revoked (here or in another process), a hook turned off.
      version: () => [options.trust.version(), [...this.syncDisabledHooks()]],
    });
    this.reload();
  }

  /** The permission rules of Claude Code's settings files in force now (the folder's allow and ask rules once trusted). */
  claudeRules(): ClaudeRules {
    return loadClaudeRules({ home: this.home, folder: this.options.folder, isTrusted: this.trust.isTrusted });
  }

  /** The custom commands that load now (Claude Code's Markdown commands). */
  commands(): CustomCommand[] {
    return this.definitions.commands().commands;
  }

  /** The subagents `task` offers now: those in Settings, then the Markdown ones of other names. */
  subagents(fromSettings: readonly SubagentSpec[]): SubagentSpec[] {
    return subagentsOf(fromSettings, this.definitions);
  }

  agentsList(fromSettings: readonly SubagentSpec[]): AgentsListDto {
    const found = this.definitions.agents();
    const taken = new Set(fromSettings.map((s) => s.name));
    return {
      agents: found.agents.map((a) => ({
        name: a.name,
        description: a.description,
        ...(a.tools ? { tools: a.tools } : {}),
        ...(a.model ? { model: a.model } : {}),
        source: a.source,
        file: a.file,
        shadowed: taken.has(a.name),
        ...(a.note ? { note: a.note } : {}),
      })),
      problems: found.problems,
    };
  }

  /** The skills that load now (a changed SKILL.md is read again: the catalog looks at each file's stat). */
  skills(): Skill[] {
    return this.catalog.current().skills;
  }

  /** The hooks in force now: checked again at every event (SPEC §9: a revoke or a changed script applies before the next step). */
  hooks(): HookEntry[] {
    return this.hooksNow().hooks;
  }

  /** What the prompt's skill list made of them last (for Settings: what was shortened or left out). */
  noteListing(listing: SkillListing): void {
    const changed = JSON.stringify([listing.shortened, listing.omitted]) !== JSON.stringify([this.listing?.shortened, this.listing?.omitted]);
    this.listing = listing;
    if (changed) this.options.onChange();
  }

  /** What did not load, one line each (a command's session says them on stderr; the window lists them in Settings). */
  problemLines(): string[] {
    return [...this.catalog.current().problems.map(skillProblemLine), ...this.definitions.commands().problems, ...this.definitions.agents().problems, ...this.loadedHooks.problems];
  }

  /** Reads the hooks files again (after a change of one, a trust granted, a switch turned). */
  reload(): void {
    this.loadedHooks = loadHooks({ dataDir: this.options.dataDir, home: this.home, folder: this.options.folder, isTrusted: this.trust.isTrusted, disabled: new Set(this.state.current().disabledHooks ?? []) });
    this.options.onChange();
  }

  scheduleReload(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.reload();
    }, RELOAD_DEBOUNCE_MS);
  }

  skillsList(): SkillsListDto {
    const found = this.catalog.current();
    const row = (skill: Skill, enabled: boolean): SkillsListDto['skills'][number] => ({
      name: skill.name,
      description: skill.description,
      source: skill.source,
      file: skill.file,
      onlyAsCommand: skill.disableModelInvocation,
      enabled,
    });
    const listing = this.listing;
    const budget: string[] = [];
    if (listing && listing.omitted.length > 0) budget.push(`Left out of the agent's list for lack of room (2% of the context window): ${listing.omitted.join(', ')}.`);
    if (listing && listing.shortened.length > 0) budget.push(`Descriptions shortened to fit: ${listing.shortened.join(', ')}.`);
    return {
      skills: [...found.skills.map((s) => row(s, true)), ...found.off.map((s) => row(s, false))].sort((a, b) => a.name.localeCompare(b.name)),
      problems: [...found.problems.map(skillProblemLine), ...found.notes],
      budgetNote: budget.join(' '),
    };
  }

  hooksList(): HooksListDto {
    const off = new Set(this.state.current().disabledHooks ?? []);
    // Every trusted hook, the ones turned off too.
    const all = loadHooks({ dataDir: this.options.dataDir, home: this.home, folder: this.options.folder, isTrusted: this.trust.isTrusted }).hooks;
    return {
      hooks: all.map((h) => ({ id: h.id, event: h.event, ...(h.matcher ? { matcher: h.matcher } : {}), command: h.command, source: h.source, file: h.file, enabled: !off.has(h.id) })),
      problems: this.loadedHooks.problems,
    };
  }

  setSkillEnabled(name: string, enabled: boolean): SkillsListDto {
    this.state.update((s) => ({ ...s, disabledSkills: toggled(s.disabledSkills, name, enabled) }));
    this.syncDisabled();
    this.options.onChange();
    return this.skillsList();
  }

  setHookEnabled(id: string, enabled: boolean): HooksListDto {
    this.state.update((s) => ({ ...s, disabledHooks: toggled(s.disabledHooks, id, enabled) }));
    this.reload();
    return this.hooksList();
  }

  private syncDisabledHooks(): ReadonlySet<string> {
    const now = this.state.current().disabledHooks ?? [];
    if (now.length !== this.disabledHooks.size || now.some((id) => !this.disabledHooks.has(id))) {
      this.disabledHooks.clear();
      for (const id of now) this.disabledHooks.add(id);
    }
    return this.disabledHooks;
  }

  private syncDisabled(): void {
    this.disabledSkills.clear();
    for (const name of this.state.current().disabledSkills ?? []) this.disabledSkills.add(name);
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.state.close();
  }
}

function toggled(list: readonly string[] | undefined, item: string, enabled: boolean): string[] {
  const set = new Set(list ?? []);
  if (enabled) set.delete(item);
  else set.add(item);
  return [...set].sort();
}

/** The subagents there are: those in Settings, then the Markdown ones (the person's, the plugins', the trusted folder's) of other names. */
function subagentsOf(fromSettings: readonly SubagentSpec[], definitions: DefinitionsCatalog): SubagentSpec[] {
  const taken = new Set(fromSettings.map((s) => s.name));
  return [...fromSettings, ...definitions.agents().agents.filter((a) => !taken.has(a.name)).map(({ name, description, systemPrompt, tools, model }) => ({ name, description, systemPrompt, ...(tools ? { tools } : {}), ...(model ? { model } : {}) }))];
}

/**
 * The subagents a session of `folder` offers now, read without opening one: trust as trust.json
 * has it (no `--trust` grant), so a folder's agents not trusted are not among them.
 */
export function folderSubagents(options: { dataDir: string; folder: string; home?: string }, fromSettings: readonly SubagentSpec[]): SubagentSpec[] {
  const store = new TrustStore(options.dataDir);
  try {
    const { folder, isTrusted } = folderTrust(store, options.folder);
    return subagentsOf(fromSettings, createDefinitionsCatalog({ dataDir: options.dataDir, home: options.home ?? homedir(), folder, isTrusted }));
  } finally {
    store.close();
  }
}
