// Issue 19: what the skill list costs the prompt (50 skills with descriptions of a typical
// length, ~150 characters) in tokens, and what the re-scan before every model call costs
// (how a new or edited SKILL.md is picked up without a restart).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { countTextTokens } from '../../src-main/core/agent/token-count';
import { createSkillCatalog } from '../../src-main/core/extensions/skills/discover';
import { skillListing, skillPromptBudget, skillsMiddleware } from '../../src-main/core/agent/middleware/skills-prompt';
import { errorText, formatMs, median, timeRuns } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report, type Section } from './report';
import { makeRng, sentence } from './text-gen';

const SKILLS = 50;
const RESCAN_TARGET_MS = 5;

async function benchSkillList(section: Section, options: BenchOptions): Promise<void> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-skills-')));
  try {
    const rng = makeRng(19);
    const skillsDir = path.join(root, 'home', '.agents', 'skills');
    for (let i = 0; i < SKILLS; i++) {
      const name = `skill-${String(i).padStart(2, '0')}`;
      let description = '';
      while (description.length < 150) description += `${sentence(rng, 8, 14)} `;
      fs.mkdirSync(path.join(skillsDir, name), { recursive: true });
      fs.writeFileSync(path.join(skillsDir, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description.trim().slice(0, 150)}\n---\n# ${name}\n\n${sentence(rng)}\n`);
    }
    const catalog = createSkillCatalog({ dataDir: path.join(root, 'data'), home: path.join(root, 'home'), folder: root, isTrusted: () => false });
    const first = performance.now();
    const skills = catalog.current().skills;
    const firstMs = performance.now() - first;
    for (const window of [200_000, undefined, 32_000]) {
      const listing = skillListing(skills, skillPromptBudget(window));
      const tokens = countTextTokens(listing.section ?? '');
      // Without a window the budget is 8,000 characters; 2,000 tokens is its 4-a-token reading.
      const budgetTokens = listing.budget.unit === 'tokens' ? listing.budget.limit : Math.floor(listing.budget.limit / 4);
      section.rows.push({
        name: `skill list, ${SKILLS} skills, ${window === undefined ? 'unknown window (8,000 chars)' : `${window / 1000}k window`}: ${listing.listed.length} listed, ${listing.shortened.length} shortened, ${listing.omitted.length} left out`,
        ours: `${tokens} tokens (${(listing.section ?? '').length} chars)`,
        target: `≤ ${budgetTokens} tokens (2%)`,
        result: verdict(tokens <= budgetTokens),
      });
    }
    const middleware = skillsMiddleware(() => catalog.current().skills, { contextWindow: 32_000 });
    const ctx = {} as unknown as Parameters<NonNullable<typeof middleware.systemPrompt>>[0];
    const sectionTimes = await timeRuns(() => Promise.resolve(middleware.systemPrompt!(ctx)), { runs: Math.max(options.runs, 50), budgetMs: 5_000 });
    section.rows.push({ name: `skills middleware per model call (re-scan + list, skills unchanged, 32k window)`, ours: formatMs(median(sectionTimes)), target: `≤ ${RESCAN_TARGET_MS} ms`, result: verdict(median(sectionTimes) <= RESCAN_TARGET_MS) });
    const times = await timeRuns(() => Promise.resolve(catalog.current()), { runs: Math.max(options.runs, 50), budgetMs: 5_000 });
    const rescan = median(times);
    section.rows.push({ name: `re-scan before a model call, ${SKILLS} skills unchanged (first scan ${formatMs(firstMs)})`, ours: formatMs(rescan), target: `≤ ${RESCAN_TARGET_MS} ms`, result: verdict(rescan <= RESCAN_TARGET_MS) });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export async function benchSkills(report: Report, options: BenchOptions): Promise<void> {
  const section = report.section(`Issue 19 · skills: the prompt's skill list and its re-scan`);
  progress('skills: prompt tokens of the list, re-scan per model call');
  await benchSkillList(section, options).catch((err: unknown) => section.rows.push({ name: 'skill list', ours: `error: ${errorText(err)}` }));
  section.notes.push('tokens: gpt-tokenizer o200k_base on the section as sent; the budget is 2% of the window, counted in these tokens (8,000 characters when the window is unknown)');
  section.notes.push('re-scan: a readdir per skills folder and a stat per skill; a SKILL.md is read again only when its stat changed');
}
