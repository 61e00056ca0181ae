// Skills through the real agent loop and the scripted model server, which records what the
// model receives: the system prompt lists the skills, the agent reads a skill's body with
// read_file at /skills/, and a skill added or edited between two model calls is in the next
// request without a restart.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, textOf, type Harness } from '../../agent/agent-harness.test-support';
import { countTextTokens } from '../../agent/token-count';
import type { RecordedRequest } from '../../models/testing/scripted-server';
import { createSkillCatalog } from './discover';
import { skillsMiddleware, type SkillListing } from '../../agent/middleware/skills-prompt';

let root: string;
let home: string;
let dataDir: string;
let h: Harness | undefined;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-skills-agent-')));
  home = join(root, 'home');
  dataDir = join(root, 'data');
  mkdirSync(home);
  mkdirSync(dataDir);
});
afterEach(async () => {
  await h?.dispose();
  h = undefined;
  rmSync(root, { recursive: true, force: true });
});

function writeSkill(name: string, description: string, body = `Steps for ${name}.\n`, extra = ''): void {
  const dir = join(home, '.agents', 'skills', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n${extra}---\n${body}`);
}

const system = (request: RecordedRequest): string => textOf(request.messages.find((m) => m.role === 'system')?.content);

describe('skills in the agent', () => {
  it('lists the skills in the system prompt and the agent reads one at /skills/ with read_file', async () => {
    writeSkill('pdf', 'Read and fill PDF forms.', 'Run pdftotext first.\n');
    writeSkill('deploy', 'Deploy the site.', 'Deploy steps.\n', 'disable-model-invocation: true\n');
    const catalog = createSkillCatalog({ dataDir, home, isTrusted: () => false });
    const source = (): ReturnType<typeof catalog.current>['skills'] => catalog.current().skills;
    h = await createHarness({
      skills: source,
      extraMiddleware: [skillsMiddleware(source)],
      script: [{ toolCalls: [{ name: 'read_file', args: { file_path: '/skills/pdf/SKILL.md' } }] }, { text: 'done' }],
    });
    await h.run('fill the form');
    const [first, second] = h.server.requests;
    expect(system(first!)).toContain('## Skills');
    expect(system(first!)).toContain('- pdf: Read and fill PDF forms. (read /skills/pdf/SKILL.md)');
    expect(system(first!)).not.toContain('deploy');
    const result = second!.messages.find((m) => m.role === 'tool');
    expect(textOf(result?.content)).toContain('Run pdftotext first.');
  });

  it('a skill added and one edited between two model calls are in the next request, without a restart', async () => {
    writeSkill('pdf', 'Old description.');
    const catalog = createSkillCatalog({ dataDir, home, isTrusted: () => false });
    const source = (): ReturnType<typeof catalog.current>['skills'] => catalog.current().skills;
    h = await createHarness({
      skills: source,
      extraMiddleware: [skillsMiddleware(source)],
      script: [
        () => {
          writeSkill('pdf', 'New description, edited.');
          writeSkill('sheets', 'Work with spreadsheets.');
          return { toolCalls: [{ name: 'ls', args: { path: '/skills/' } }] };
        },
        { text: 'done' },
      ],
    });
    await h.run('go');
    const [first, second] = h.server.requests;
    expect(system(first!)).toContain('- pdf: Old description.');
    expect(system(first!)).not.toContain('sheets');
    expect(system(second!)).toContain('- pdf: New description, edited.');
    expect(system(second!)).toContain('- sheets: Work with spreadsheets. (read /skills/sheets/SKILL.md)');
    expect(textOf(second!.messages.find((m) => m.role === 'tool')?.content)).toContain('/skills/sheets/');
  });

  it('with many skills and a tiny context window the list is shortened, says what it left out, and reports it', async () => {
    for (let i = 0; i < 50; i++) writeSkill(`s-${String(i).padStart(2, '0')}`, `Skill number ${i}, ${'words '.repeat(40)}`);
    const catalog = createSkillCatalog({ dataDir, home, isTrusted: () => false });
    expect(catalog.current().problems).toEqual([]);
    const listings: SkillListing[] = [];
    h = await createHarness({
      extraMiddleware: [skillsMiddleware(() => catalog.current().skills, { contextWindow: 20_000, onListing: (l) => listings.push(l) })],
      script: [{ text: 'ok' }],
    });
    await h.run('hi');
    const prompt = system(h.server.requests[0]!);
    const section = prompt.slice(prompt.indexOf('## Skills'));
    const listing = listings.at(-1)!;
    expect(listing.budget).toEqual({ limit: 400, unit: 'tokens' });
    expect(listing.omitted.length).toBeGreaterThan(0);
    expect(countTextTokens(section)).toBeLessThanOrEqual(400);
    expect(section).toContain(`Left out for lack of room (${listing.omitted.length}): `);
    expect(section).toContain('…');
  });
});
