// The corpus of real public artifacts (test/fixtures/claude-code-corpus, see its SOURCES.md)
// through the built CLI, as a person would feed them to Deepdesk: skills in a folder's
// `.claude/skills/` (`deepdesk skills ls`), commands, subagents and plugin hooks through
// `deepdesk trust`'s list, whole plugins installed from their unchanged marketplace files
// (served from a git repository made of the corpus) with `deepdesk plugin`. Each loads, or is
// refused with one line naming the file and the error its author made: the outcomes are
// recorded in expected.json (UPDATE_CORPUS=1 writes it anew for review) and counted per kind.

import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repo, useCliTestEnv } from './cli-harness.test-support';

const CORPUS = join(repo, 'test', 'fixtures', 'claude-code-corpus');
const EXPECTED = join(CORPUS, 'expected.json');
const t = useCliTestEnv('deepdesk-corpus');

type Outcome = 'load' | `fail: ${string}`;
const outcomes: Record<string, Outcome> = {};

function walk(dir: string, found: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, found);
    else found.push(path);
  }
  return found;
}
const corpusFiles = walk(CORPUS);
const rel = (path: string): string => relative(CORPUS, path);
/** `1 hook`, `2 hooks`: how `plugin ls` counts. */
const counted = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;
/** The line that names this file, without the temp folder it was copied to. */
const lineFor = (lines: string[], name: string): string | undefined => lines.find((l) => l.includes(name));

describe('the corpus of public artifacts, through the CLI', () => {
  it('skills: each loads from a folder, or is one line naming its file and its error', async () => {
    const skills = corpusFiles.filter((f) => basename(f) === 'SKILL.md');
    const placed = new Map<string, string>();
    for (const file of skills) {
      const folderName = basename(dirname(file));
      if ([...placed.values()].includes(folderName)) continue; // two plugins' skills of one name: one folder
      placed.set(file, folderName);
      mkdirSync(join(t.folder, '.claude', 'skills', folderName), { recursive: true });
      writeFileSync(join(t.folder, '.claude', 'skills', folderName, 'SKILL.md'), readFileSync(file));
    }
    await t.deepdesk(['trust', '--folder', t.folder, '--data-dir', t.dataDir]);
    const ls = await t.deepdesk(['skills', 'ls', '--folder', t.folder, '--data-dir', t.dataDir]);
    const rows = ls.stdout.split('\n');
    const problems = ls.stderr.split('\n');
    for (const [file, name] of placed) {
      const loaded = rows.some((row) => row.startsWith(`${name} `) && row.includes(`/${name}/SKILL.md`));
      const problem = lineFor(problems, `/${name}/SKILL.md`);
      outcomes[`skill ${rel(file)}`] = loaded ? 'load' : `fail: ${problem?.replace(/^.*\/SKILL\.md: /, '') ?? 'not listed and no line'}`;
    }
  }, 120_000);

  it("commands, subagents and plugins' hooks and servers: each is a line of the trust list, or one problem line naming its file", async () => {
    const commands = corpusFiles.filter((f) => /\/commands\/[^/]+\.md$/.test(f));
    const agents = corpusFiles.filter((f) => /\/agents\/[^/]+\.md$/.test(f));
    const folder = join(t.folder, 'defs');
    commands.forEach((file, i) => {
      mkdirSync(join(folder, '.claude', 'commands', `c${i}`), { recursive: true });
      writeFileSync(join(folder, '.claude', 'commands', `c${i}`, basename(file)), readFileSync(file));
    });
    agents.forEach((file, i) => {
      mkdirSync(join(folder, '.claude', 'agents'), { recursive: true });
      writeFileSync(join(folder, '.claude', 'agents', `a${i}-${basename(file)}`), readFileSync(file));
    });
    const trust = await t.deepdesk(['trust', '--folder', folder, '--data-dir', t.dataDir]);
    const lines = trust.stdout.split('\n');
    const problems = trust.stderr.split('\n');
    commands.forEach((file, i) => {
      const at = `.claude/commands/c${i}/${basename(file)}`;
      outcomes[`command ${rel(file)}`] = lines.some((l) => l.startsWith('Command /') && l.endsWith(at)) ? 'load' : `fail: ${lineFor(problems, at) ?? 'not listed and no line'}`;
    });
    agents.forEach((file, i) => {
      const at = `.claude/agents/a${i}-${basename(file)}`;
      outcomes[`agent ${rel(file)}`] = lines.some((l) => l.startsWith('Subagent ') && l.endsWith(at)) ? 'load' : `fail: ${(lineFor(problems, at) ?? 'not listed and no line').replace(/^.*\.md: /, '')}`;
    });
  }, 120_000);

  it('plugins: installed from their own marketplace files, served by git, each lists what it loads', async () => {
    for (const market of ['wshobson-agents', 'claude-plugins-official']) {
      const repoDir = join(t.folder, `${market}.git-src`);
      cpSync(join(CORPUS, market), repoDir, { recursive: true });
      // `more/` is not a plugin of the marketplace: only the whole plugins are.
      for (const args of [['init', '-q', '-b', 'main'], ['add', '.'], ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'corpus']]) execFileSync('git', args, { cwd: repoDir });
      const added = await t.deepdesk(['plugin', 'marketplace', 'add', `file://${repoDir}`, '--data-dir', t.dataDir]);
      expect(added.code, added.stderr).toBe(0);
      const manifest = JSON.parse(readFileSync(join(CORPUS, market, '.claude-plugin', 'marketplace.json'), 'utf8')) as { name: string; plugins: Array<{ name: string; source: unknown }> };
      for (const plugin of manifest.plugins) {
        if (typeof plugin.source !== 'string' || !existsSync(join(CORPUS, market, plugin.source, '.claude-plugin', 'plugin.json'))) continue;
        const install = await t.deepdesk(['plugin', 'install', `${plugin.name}@${manifest.name}`, '--yes', '--data-dir', t.dataDir]);
        outcomes[`plugin ${market}/${plugin.source.replace(/^\.\//, '')}`] = install.code === 0 ? 'load' : `fail: ${install.stderr.trim()}`;
      }
    }
    const ls = await t.deepdesk(['plugin', 'ls', '--data-dir', t.dataDir]);
    expect(ls.stderr).toBe('');
    // The hooks and servers they bring load as the person's: listed for trust nowhere, run as hooks.
    for (const line of ls.stdout.trim().split('\n')) expect(line).toMatch(/^\S+\s+\S+\s+\S+\s+enabled\s+\d+ skills?, \d+ commands?, \d+ agents?, \d+ hooks?, \d+ servers?$/);
    // Each plugin's hooks file and .mcp.json: the hooks and servers it declares are what `plugin ls` counts, and the servers are listed by `mcp ls`.
    const rows = new Map(ls.stdout.trim().split('\n').map((line) => [line.split(/\s+/)[0]!, line]));
    const mcp = await t.deepdesk(['mcp', 'ls', '--folder', t.folder, '--data-dir', t.dataDir]);
    for (const file of corpusFiles.filter((f) => /\/hooks\/hooks\.json$/.test(f) || f.endsWith('/.mcp.json'))) {
      const pluginDir = file.endsWith('.mcp.json') ? dirname(file) : dirname(dirname(file));
      const name = (JSON.parse(readFileSync(join(pluginDir, '.claude-plugin', 'plugin.json'), 'utf8')) as { name: string }).name;
      const row = rows.get(name) ?? '';
      if (file.endsWith('.mcp.json')) {
        const declared = Object.keys((JSON.parse(readFileSync(file, 'utf8')) as { mcpServers?: Record<string, unknown> }).mcpServers ?? {});
        const listed = declared.every((server) => new RegExp(`^${server}\\s+stdio\\s`, 'm').test(mcp.stdout));
        outcomes[`mcp ${rel(file)}`] = listed && row.includes(counted(declared.length, 'server')) ? 'load' : `fail: ${mcp.stderr.trim() || 'not listed'}`;
      } else {
        const hooks = (JSON.parse(readFileSync(file, 'utf8')) as { hooks: Record<string, Array<{ hooks: unknown[] }>> }).hooks;
        const count = Object.values(hooks).flat().reduce((n, group) => n + group.hooks.length, 0);
        outcomes[`hook ${rel(file)}`] = row.includes(counted(count, 'hook')) ? 'load' : `fail: ${row || 'not installed'}`;
      }
    }

    // A plugin's hook runs as Claude Code runs it: explanatory-output-style's SessionStart script,
    // found through CLAUDE_PLUGIN_ROOT, gives the model its additionalContext.
    t.server.push({ text: 'ok' });
    const run = await t.deepdesk(['run', '--folder', t.folder, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, 'hello']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.stringify(t.server.requests.at(-1)!.messages)).toContain("You are in 'explanatory' output style mode");
  }, 240_000);

  it('matches the recorded outcomes; per kind: loaded and refused', () => {
    const counts: Record<string, { load: number; fail: number }> = {};
    for (const [id, outcome] of Object.entries(outcomes)) {
      const kind = id.split(' ')[0]!;
      counts[kind] ??= { load: 0, fail: 0 };
      counts[kind][outcome === 'load' ? 'load' : 'fail']++;
    }
    process.stdout.write(`corpus: ${JSON.stringify(counts)}\n`);
    if (process.env.UPDATE_CORPUS === '1') writeFileSync(EXPECTED, `${JSON.stringify(outcomes, null, 2)}\n`);
    expect(outcomes).toEqual(JSON.parse(readFileSync(EXPECTED, 'utf8')));
    // Every refusal is a line that names what is wrong, never silence.
    for (const [id, outcome] of Object.entries(outcomes)) expect(outcome, id).not.toContain('not listed and no line');
  });
});
