// The docs cannot drift from the code: every `deepdesk` command, subcommand and flag that
// README.md and docs/*.md show is one the CLI's own command table accepts, every `npm run`
// script exists in package.json, and every relative link leads to a file.

import { SESSION_FLAGS } from '../src-main/app/base/session-flags';
import { COMMAND_OPTIONS } from '../src-main/cli/command-table';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDocument, codeTexts, deepdeskInvocations, invocationProblems, npmScripts, relativeLinks } from './docs-check';

const repo = resolve(import.meta.dirname, '..');
const scripts = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const documents = [join(repo, 'README.md'), ...readdirSync(join(repo, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).map((f) => join(repo, 'docs', f))];

describe('README.md and docs/', () => {
  it('show only commands, subcommands and flags the CLI has, scripts package.json has, and links that lead to files', () => {
    const problems = documents.flatMap((file) => checkDocument(repo, file, scripts)).map((p) => `${p.file}:${p.line}: ${p.problem}`);
    expect(problems).toEqual([]);
  });

  it('document every command of the CLI (docs/cli.md shows each)', () => {
    const cli = readFileSync(join(repo, 'docs/cli.md'), 'utf8');
    const shown = new Set(codeTexts(cli).code.flatMap((c) => deepdeskInvocations(c.text)).map((inv) => inv.split(/\s+/)[0]));
    for (const command of Object.keys(COMMAND_OPTIONS)) expect(shown, command).toContain(command);
  });

  it('document every session flag (docs/cli.md names each row of the table)', () => {
    const cli = readFileSync(join(repo, 'docs/cli.md'), 'utf8');
    expect(SESSION_FLAGS.map((row) => `--${row.flag}`).filter((flag) => !cli.includes(flag))).toEqual([]);
  });

  it('map every folder of src-main (docs/development.md names each, with its floor)', () => {
    const map = readFileSync(join(repo, 'docs/development.md'), 'utf8');
    const folders = (dir: string): string[] =>
      readdirSync(join(repo, 'src-main', dir), { withFileTypes: true })
        .filter((e) => e.isDirectory() && e.name !== 'testing' && e.name !== '__fixtures__')
        .flatMap((e) => [`${dir}${e.name}/`, ...folders(`${dir}${e.name}/`)]);
    expect(folders('').filter((folder) => !map.includes(`\`${folder}\``))).toEqual([]);
  });

  it('the README links every page of docs/', () => {
    const linked = new Set(relativeLinks(codeTexts(readFileSync(join(repo, 'docs/README.md'), 'utf8')).prose).map((l) => l.target));
    const pages = readdirSync(join(repo, 'docs')).filter((f) => f.endsWith('.md') && f !== 'README.md');
    expect(pages.filter((p) => !linked.has(p))).toEqual([]);
  });
});

describe('the docs check', () => {
  it('finds a flag, a subcommand or a command the CLI does not have', () => {
    expect(invocationProblems('run --json --thread ID "prompt"')).toEqual([]);
    expect(invocationProblems('run --bogus-flag "prompt"')).toEqual(['`deepdesk run --bogus-flag`: run has no --bogus-flag']);
    expect(invocationProblems('serve --revoke')).toEqual(['`deepdesk serve --revoke`: serve has no --revoke']);
    expect(invocationProblems('memories ls | cat PATH | copy PATH')).toEqual(['`deepdesk memories copy`: no such subcommand (ls, cat, write, rm, log, restore, approve, reject, import)']);
    expect(invocationProblems('deploy --now')).toEqual(['`deepdesk deploy`: no such command']);
  });

  it("reads flags in brackets and alternatives, and stops at `--` (the rest is another program's)", () => {
    expect(invocationProblems("mcp add NAME [--project] [-e K=V]… [--no-sandbox] -- npx -y server --port 1")).toEqual([]);
    expect(invocationProblems('checkpoints ls --thread ID | diff ID [PATH] | restore ID [--force]')).toEqual([]);
    expect(invocationProblems('checkpoints ls --thread ID | restore ID [--forced]')).toEqual(['`deepdesk checkpoints --forced`: checkpoints has no --forced']);
    expect(invocationProblems('--version')).toEqual([]);
  });

  it('finds command lines in fenced blocks (comments and continuations included) and in inline code across lines', () => {
    const doc = ['Run `deepdesk trust', '--revoke` to forget.', '', '```sh', 'npx deepdesk run --mode plan \\', '  --json "x"   # prints deepdesk X.Y.Z', '```', ''].join('\n');
    const found = codeTexts(doc).code.flatMap((c) => deepdeskInvocations(c.text));
    expect(found.sort()).toEqual(['run --mode plan --json "x"', 'trust --revoke']);
  });

  it('finds npm scripts and relative links, not URLs or anchors', () => {
    expect(npmScripts('npm run bench -- --only core; npm test; npm ci')).toEqual(['bench', 'test']);
    const links = relativeLinks('[a](docs/cli.md#run) [b](https://x.y/) [c](#here) ![d](images/w.png) `[e](nope.md)`');
    expect(links.map((l) => l.target)).toEqual(['docs/cli.md', 'images/w.png']);
  });
});
