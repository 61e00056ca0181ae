// The folder's own skills as trust entries (SPEC §9): one per valid project skill, keyed by
// its folder (two project folders may hold the same name), digest = sha256 of its SKILL.md.

import { join } from 'node:path';
import type { TrustEntry } from '../../config/trust-entry';
import { visibleLine } from '../../text/visible-line';
import { PROJECT_SKILL_DIRS, projectSkillKey, scanSkillsDir, SKILL_FILE } from './discover';
import type { SkillProblem } from './types';

export function projectSkillTrustEntries(folder: string): { entries: TrustEntry[]; problems: string[] } {
  const problems: SkillProblem[] = [];
  const entries: TrustEntry[] = [];
  for (const relRoot of PROJECT_SKILL_DIRS) {
    for (const found of scanSkillsDir(join(folder, relRoot), problems)) {
      const relDir = `${relRoot}/${found.name}`;
      entries.push({
        kind: 'skill',
        key: projectSkillKey(relDir),
        file: join(found.path, SKILL_FILE),
        digest: found.digest,
        label: visibleLine(`Skill ${found.name}: ${relDir}/${SKILL_FILE}`),
      });
    }
  }
  return { entries, problems: problems.map(skillProblemLine) };
}

/** `FILE: PROBLEM`, as every configuration problem is told. */
export function skillProblemLine(problem: SkillProblem): string {
  return `${problem.file}: ${problem.message}`;
}
