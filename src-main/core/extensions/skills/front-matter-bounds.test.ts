// Front matter is data (SPEC §9 last bullet, issue 37): read within bounded time and size, so
// a cloned repository's SKILL.md can neither stall a scan nor take the process's memory. A
// front matter over the limits, or an alias bomb, is one problem naming the file; the same
// content is parsed once however many catalogs look at it; and §11's lenient reading holds.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { createSkillCatalog, discoverSkills, SCAN_READ_BUDGET_MS, type DiscoverOptions } from './discover';
import { MAX_FRONT_MATTER_CHARS } from './front-matter';

// The work is counted (YAML parses and their options, files read per scan), never timed. The
// parser is watched on the module front-matter.ts loads when it first parses.
const parses = vi.spyOn(createRequire(import.meta.url)('yaml') as typeof Yaml, 'parseDocument');
afterAll(() => parses.mockRestore());

let root: string;
let home: string;
let dataDir: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-skill-bounds-')));
  home = join(root, 'home');
  dataDir = join(root, 'data');
  for (const dir of [home, dataDir]) mkdirSync(dir);
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  parses.mockClear();
});

function skill(name: string, front: string): string {
  const dir = join(dataDir, 'skills', name);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'SKILL.md');
  writeFileSync(file, `---\n${front}\n---\n# ${name}\n`);
  return file;
}
const options: () => DiscoverOptions = () => ({ dataDir, home, isTrusted: () => false });
const header = (name: string) => `name: ${name}\ndescription: Use for ${name} tasks.`;

describe('front matter within bounds', () => {
  it('two SKILL.md with 20,000 keys each are refused at once, one problem naming each file; a good skill beside them loads', () => {
    const keys = Array.from({ length: 20_000 }, (_, i) => `k${i}: v`).join('\n');
    const a = skill('many-a', `${header('many-a')}\n${keys}`);
    const b = skill('many-b', `${header('many-b')}\n${keys}`);
    skill('good', header('good'));
    const found = discoverSkills(options());
    expect(found.skills.map((s) => s.name)).toEqual(['good']);
    expect(found.problems).toEqual([
      { file: a, message: expect.stringMatching(new RegExp(`^front matter is longer than ${MAX_FRONT_MATTER_CHARS.toLocaleString('en-US')} characters`)) as unknown },
      { file: b, message: expect.stringMatching(/^front matter is longer than/) as unknown },
    ]);
    // Refused before any parse: only the good skill's front matter reached the YAML parser.
    expect(parses).toHaveBeenCalledTimes(1);
  });

  it('an alias bomb (a billion laughs) within the size limit is refused before it is expanded', () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
    const file = skill('laughs', `${header('laughs')}\n${lines.join('\n')}`);
    const found = discoverSkills(options());
    expect(found.skills).toEqual([]);
    // Refused before its aliases were expanded.
    expect(found.problems).toEqual([{ file, message: expect.stringMatching(/^front matter uses more than \d+ aliases/) as unknown }]);
  });

  it('a one-line flow mapping of 1,500 keys and a flow list nested 3,000 deep answer, with no search for duplicate keys', () => {
    const flow = `{${Array.from({ length: 1_500 }, (_, i) => `k${i}: v`).join(', ')}}`;
    skill('flow', `${header('flow')}\nextra: ${flow}`.slice(0, MAX_FRONT_MATTER_CHARS - 10));
    skill('deep', `${header('deep')}\nextra: ${'['.repeat(3_000)}${']'.repeat(3_000)}`);
    const found = discoverSkills(options());
    expect(found.skills.length + found.problems.length).toBe(2);
    // That search is quadratic in the keys: every parse leaves it out.
    expect(parses).toHaveBeenCalled();
    for (const [, parseOptions] of parses.mock.calls) expect(parseOptions).toMatchObject({ uniqueKeys: false });
  });

  it('the same content is parsed once: a second catalog over the same skills parses nothing', () => {
    const body = Array.from({ length: 120 }, (_, i) => `k${i}: {a: [1, 2, {b: c}], d: "e"}`).join('\n');
    for (let i = 0; i < 40; i++) skill(`s${i}`, `${header(`s${i}`)}\n${body}`);
    const catalog = createSkillCatalog(options());
    let first = catalog.current();
    for (let look = 0; look < 40 && first.problems.length > 0; look++) first = catalog.current();
    expect(parses).toHaveBeenCalledTimes(40);
    const second = createSkillCatalog(options()).current();
    const described = (d: typeof first) => d.skills.map((s) => [s.name, s.description, s.digest]);
    expect(second.problems).toEqual([]);
    expect(described(second)).toEqual(described(first));
    expect(first.skills).toHaveLength(40);
    expect(parses).toHaveBeenCalledTimes(40);
  });
});

describe('many skills', () => {
  it('a scan spends a bounded time reading new front matter; the rest is read by the next looks', () => {
    const body = Array.from({ length: 190 }, (_, i) => `k${i}: {a: [1, 2, {b: c}]}`).join('\n').slice(0, 7_000);
    for (let i = 0; i < 60; i++) skill(`s${i}`, `${header(`s${i}`)}\n${body.slice(0, body.lastIndexOf('\n'))}`);
    // A clock that moves a tenth of the budget each time it is read: the scan's own decision
    // to stop is what is seen, however fast the machine reads.
    const step = SCAN_READ_BUDGET_MS / 10;
    let now = 0;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => (now += step));
    onTestFinished(() => clock.mockRestore());
    const catalog = createSkillCatalog(options());
    let looks = 0;
    let loaded = 0;
    for (;;) {
      const found = catalog.current();
      looks++;
      // Each look reads until its budget is spent: at most one file per reading of the clock within it.
      expect(found.skills.length - loaded).toBeGreaterThan(0);
      expect(found.skills.length - loaded).toBeLessThanOrEqual(SCAN_READ_BUDGET_MS / step + 1);
      loaded = found.skills.length;
      expect(found.problems.every((p) => p.message.startsWith('was not read: reading skills took longer than 1 s'))).toBe(true);
      expect(found.problems).toHaveLength(60 - loaded);
      if (found.problems.length === 0) break;
      expect(looks).toBeLessThan(60);
    }
    expect(looks).toBeGreaterThan(1);
  });
});

describe("§11's lenient reading", () => {
  it('an unquoted `: ` or a leading `@` in a plain value is the text it plainly is, with no problem', () => {
    skill('colon', 'name: colon\ndescription: Use when: the person asks for a colon');
    skill('at', 'name: at\ndescription: @mentions are expanded by this skill');
    const found = discoverSkills(options());
    expect(found.problems).toEqual([]);
    expect(found.skills.map((s) => [s.name, s.description])).toEqual([
      ['at', '@mentions are expanded by this skill'],
      ['colon', 'Use when: the person asks for a colon'],
    ]);
  });

  it('what no reading can save is still a problem', () => {
    const file = skill('broken', 'name: broken\ndescription: "unclosed');
    expect(discoverSkills(options()).problems).toEqual([{ file, message: expect.stringMatching(/^front matter is not valid YAML/) as unknown }]);
  });
});
