// The skills in the system prompt (SPEC §11): each model-invocable skill's name, description
// and the path to read it from, within 2% of the context window counted in real tokens
// (o200k; 4 characters a token would let the list overshoot: names, paths and hyphens run
// nearer 3.4), or 8,000 characters when the window is unknown. Descriptions are shortened
// first (all to one common length, as little as needed), then skills are left out from the
// end of the list, and the section says what it left out.

import type { Middleware } from '../middleware';
import type { RunContext } from '../run-context';
import { oneLine } from '../../text/markdown-code';
import { countSystemTokens } from '../token-count';
import type { Skill } from '../../extensions/skills/types';

export const PROMPT_SHARE = 0.02;
export const UNKNOWN_WINDOW_BUDGET_CHARS = 8000;
/** Descriptions are not shortened below this before skills are left out. */
export const MIN_DESCRIPTION_CHARS = 40;
/** At most this many left-out names are spelled out in the section. */
const OMITTED_NAMES_SHOWN = 20;

const HEADER = [
  '## Skills',
  '',
  "When a task matches a skill's description, read its SKILL.md first and follow it; files it names are beside it.",
  '',
].join('\n');

export interface SkillListing {
  /** The system prompt section; undefined when no skill is listed or left out. */
  section: string | undefined;
  /** Names listed, in order. */
  listed: string[];
  /** Names listed with a shortened description. */
  shortened: string[];
  /** Names left out for lack of room. */
  omitted: string[];
  budget: SkillPromptBudget;
}

/** How much the list may take: tokens of a known context window, or characters. */
export interface SkillPromptBudget {
  limit: number;
  unit: 'tokens' | 'chars';
}

/** The budget for a context window of this many tokens (unknown: undefined or 0). */
export function skillPromptBudget(contextWindow: number | undefined): SkillPromptBudget {
  return contextWindow !== undefined && contextWindow > 0
    ? { limit: Math.floor(contextWindow * PROMPT_SHARE), unit: 'tokens' }
    : { limit: UNKNOWN_WINDOW_BUDGET_CHARS, unit: 'chars' };
}

/** The size of a text in the budget's unit. */
export function budgetSize(text: string, budget: SkillPromptBudget): number {
  // The same listing run after run (a warm session's): counted once.
  return budget.unit === 'tokens' ? countSystemTokens(text) : text.length;
}

/** `4,000 tokens` / `8,000 characters`. */
export function budgetText(budget: SkillPromptBudget): string {
  return `${budget.limit.toLocaleString('en-US')} ${budget.unit === 'tokens' ? 'tokens' : 'characters'}`;
}

/** The skills the model may be told about: `disable-model-invocation` ones run only as `/name`. */
export function modelInvocable(skills: readonly Skill[]): Skill[] {
  return skills.filter((s) => !s.disableModelInvocation).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function skillListing(skills: readonly Skill[], budget: SkillPromptBudget): SkillListing {
  const all = modelInvocable(skills);
  const fits = (text: string): boolean => budgetSize(text, budget) <= budget.limit;
  const result = (kept: Skill[], cap: number): SkillListing => {
    const omitted = all.slice(kept.length).map((s) => s.name);
    return {
      section: kept.length + omitted.length === 0 ? undefined : render(kept, cap, omitted),
      listed: kept.map((s) => s.name),
      shortened: kept.filter((s) => oneLine(s.description).length > cap).map((s) => s.name),
      omitted,
      budget,
    };
  };
  const longest = Math.max(0, ...all.map((s) => oneLine(s.description).length));
  if (fits(render(all, longest, []))) return result(all, longest);
  if (fits(render(all, MIN_DESCRIPTION_CHARS, []))) {
    // The longest common cap that fits (the length only grows with the cap).
    let low = MIN_DESCRIPTION_CHARS;
    let high = longest;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (fits(render(all, mid, []))) low = mid;
      else high = mid - 1;
    }
    return result(all, low);
  }
  let count = all.length;
  while (count > 0 && !fits(render(all.slice(0, count), MIN_DESCRIPTION_CHARS, all.slice(count).map((s) => s.name)))) count -= 1;
  return result(all.slice(0, count), MIN_DESCRIPTION_CHARS);
}

export interface SkillsMiddlewareOptions {
  /** Overrides the model's context window (tokens). */
  contextWindow?: number;
  /** Told each time the listing is made (e.g. for Settings: what was left out). */
  onListing?: (listing: SkillListing) => void;
}

/** Lists `source()`'s skills (read before every model call) in the system prompt. */
export function skillsMiddleware(source: () => readonly Skill[], options: SkillsMiddlewareOptions = {}): Middleware {
  const windowOf = (ctx: RunContext): number | undefined => options.contextWindow ?? (ctx.model.contextWindow > 0 ? ctx.model.contextWindow : undefined);
  // Counting tokens for every trial length costs a few milliseconds: made again only when
  // the skills or the budget changed.
  let last: { key: string; listing: SkillListing } | null = null;
  return {
    name: 'skills',
    systemPrompt(ctx) {
      const skills = source();
      const budget = skillPromptBudget(windowOf(ctx));
      const key = [budget.unit, budget.limit, ...skills.map((s) => `${s.name}\0${s.description}\0${s.virtualPath}\0${s.disableModelInvocation}`)].join('\0\0');
      if (last?.key !== key) last = { key, listing: skillListing(skills, budget) };
      const listing = last.listing;
      options.onListing?.(listing);
      return listing.section;
    },
  };
}

function render(kept: readonly Skill[], cap: number, omitted: readonly string[]): string {
  const lines = kept.map((s) => `- ${s.name}: ${shorten(oneLine(s.description), cap)} (read ${s.virtualPath})`);
  if (omitted.length > 0) {
    const names = omitted.slice(0, OMITTED_NAMES_SHOWN).join(', ');
    const more = omitted.length > OMITTED_NAMES_SHOWN ? `, and ${omitted.length - OMITTED_NAMES_SHOWN} more` : '';
    lines.push(`Left out for lack of room (${omitted.length}): ${names}${more}. The person can still run them as /name.`);
  }
  return HEADER + lines.join('\n');
}

function shorten(text: string, cap: number): string {
  return text.length <= cap ? text : `${text.slice(0, cap - 1).trimEnd()}…`;
}
