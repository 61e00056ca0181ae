// Sign of THE table of sandbox providers (core/process/sandbox-provider-table.ts and its code
// part, registry.ts): a provider's name, label and variables are written once. No other file of
// src-main or src-renderer (tests and stand-ins aside) writes one in its strings or text, an
// adapter writes only its own provider's, and every variable an adapter reads is in its row.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { SANDBOX_PROVIDER_NAMES, SANDBOX_PROVIDER_TABLE, type SandboxProviderName } from '../process/sandbox-provider-table';
import { sanitizeEnv } from '../process/shell-env';
import { SANDBOX_PROVIDER_CODE } from './registry';
import { startStandin } from './testing/standins';

const repo = resolve(import.meta.dirname, '../../..');
const TABLE = 'src-main/core/process/sandbox-provider-table.ts';
const REGISTRY = 'src-main/core/sandbox-providers/registry.ts';
const adapterFolder = (name: SandboxProviderName): string => `src-main/core/sandbox-providers/${name}/`;

/** Literals that name something else by the same word: the Deno runtime the agent's shell commands may run, the window's modal dialog. */
const NOT_THE_PROVIDER: Record<string, RegExp> = {
  'src-main/core/agent/permissions/shell-commands.ts': /^(deno|DENO_)$/,
  'src-main/core/agent/permissions/suggest.ts': /^deno$/,
  'src-renderer/src/components/Modal.tsx': /^modal$/,
};

/** A module specifier names a file, not a provider; one leading into an adapter's folder is a stray, though (only registry.ts opens them). */
const ADAPTER_MODULE = new RegExp(`sandbox-providers/(${SANDBOX_PROVIDER_NAMES.join('|')})/`);

function isModuleSpecifier(node: ts.Node): boolean {
  const parent = node.parent;
  if (parent === undefined) return false;
  if ((ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent)) && parent.moduleSpecifier === node) return true;
  if (ts.isCallExpression(parent) && parent.expression.kind === ts.SyntaxKind.ImportKeyword) return true;
  return ts.isLiteralTypeNode(parent) && ts.isImportTypeNode(parent.parent);
}

const isTest = (file: string): boolean => /\.test(-support)?\.tsx?$/.test(file) || file.includes('/testing/') || file.includes('/__fixtures__/') || file.startsWith('src-main/core/containment/');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(repo, dir)).flatMap((entry) => {
    const path = `${dir}/${entry}`;
    if (entry === 'node_modules') return [];
    if (statSync(join(repo, path)).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry) && !entry.endsWith('.d.ts') ? [path] : [];
  });
}

/** The text of a file's string literals, template parts and JSX text: what it says, not its comments or identifiers. */
function literals(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(repo, file), 'utf8'), ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) && isModuleSpecifier(node)) {
      const adapter = ADAPTER_MODULE.exec(node.text);
      if (adapter) out.push(adapter[1]!);
    } else if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node) || ts.isJsxText(node)) out.push(node.text);
    node.forEachChild(visit);
  };
  visit(source);
  return out;
}

/** What a file's code can read a variable by: its literals and the properties it reads (an `env.E2B_API_URL` and a `credential(c, 'E2B_DOMAIN')` alike). */
function codeWords(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(repo, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node)) out.push(node.name.text);
    else if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) out.push(node.text);
    node.forEachChild(visit);
  };
  visit(source);
  return out;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A provider's name as a word (not `modal-backdrop` or `e2b.dev`'s parts), its label as a word, and any variable of its prefix. */
function mentions(name: SandboxProviderName): RegExp {
  const row = SANDBOX_PROVIDER_TABLE[name];
  return new RegExp(`(?<![\\w.-])${escape(name)}(?![\\w-])|\\b${escape(row.label)}\\b|\\b${escape(name.toUpperCase())}_[A-Z0-9_]+`, 'g');
}

/** Every stray mention in the files: `file: "word" in "literal"`. */
function strays(files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    if (file === TABLE || file === REGISTRY || isTest(file)) continue;
    for (const text of literals(file)) {
      for (const name of SANDBOX_PROVIDER_NAMES) {
        if (file.startsWith(adapterFolder(name))) continue;
        for (const m of text.matchAll(mentions(name))) {
          if (NOT_THE_PROVIDER[file]?.test(text.trim())) continue;
          found.push(`${file}: ${JSON.stringify(m[0])} in ${JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)}`);
        }
      }
    }
  }
  return found;
}

describe('THE table of sandbox providers', () => {
  it('is the only place a provider, its label or one of its variables is written (src-main and src-renderer, tests aside)', () => {
    expect(strays([...sourceFiles('src-main'), ...sourceFiles('src-renderer')])).toEqual([]);
  });

  it('would see a stray name, label or variable in a string, a template or JSX text', () => {
    const probe = 'src-main/core/sandbox-providers/providers.test-probe.tsx';
    const texts = ["z.enum(['daytona', 'deno'])", '`--sandbox e2b|modal`', '<p>Runs in E2B</p>', "env.DAYTONA_SERVER_URL ?? 'x'"];
    const words = texts.flatMap((t) => SANDBOX_PROVIDER_NAMES.flatMap((n) => [...t.matchAll(mentions(n))].map((m) => m[0])));
    expect(words.sort()).toEqual(['DAYTONA_SERVER_URL', 'E2B', 'daytona', 'deno', 'e2b', 'modal']);
    expect(isTest(probe)).toBe(false);
  });

  it('has every variable an adapter reads in its row, and an adapter names no other provider', () => {
    for (const name of SANDBOX_PROVIDER_NAMES) {
      const row = SANDBOX_PROVIDER_TABLE[name];
      const files = sourceFiles(adapterFolder(name).slice(0, -1)).filter((f) => !isTest(f));
      expect(files.length).toBeGreaterThan(0);
      const read = new Set(files.flatMap((f) => codeWords(f).flatMap((w) => w.match(new RegExp(`\\b${name.toUpperCase()}_[A-Z0-9_]+`, 'g')) ?? [])));
      expect({ name, unlisted: [...read].filter((v) => !(row.keys as readonly string[]).includes(v) && !(row.endpoints as readonly string[]).includes(v)) }).toEqual({ name, unlisted: [] });
      const others = SANDBOX_PROVIDER_NAMES.filter((n) => n !== name);
      const named = files.flatMap((f) => literals(f).flatMap((t) => others.flatMap((o) => [...t.matchAll(mentions(o))].map((m) => `${relative(repo, join(repo, f)).split(sep).join('/')}: ${m[0]}`))));
      expect(named).toEqual([]);
    }
  });

  it('has each adapter read its credentials and endpoints from what it is given, never process.env', () => {
    for (const name of SANDBOX_PROVIDER_NAMES) {
      for (const file of sourceFiles(adapterFolder(name).slice(0, -1)).filter((f) => !isTest(f))) {
        expect({ file, processEnv: /\bprocess\.env\b/.test(readFileSync(join(repo, file), 'utf8').replace(/\/\/.*$/gm, '')) }).toEqual({ file, processEnv: false });
      }
    }
  });

  it("withholds every row's keys from the commands Deepdesk starts, however they are named (a Modal token id, a Deno organization)", () => {
    for (const name of SANDBOX_PROVIDER_NAMES) {
      const row = SANDBOX_PROVIDER_TABLE[name];
      const given = Object.fromEntries([...row.keys, ...row.endpoints].map((v) => [v, `value-of-${v}`]));
      expect({ name, kept: Object.keys(sanitizeEnv({ PATH: '/usr/bin', ...given })).sort() }).toEqual({ name, kept: ['PATH', ...row.endpoints].sort() });
    }
  });

  it('has an adapter fork exactly where its row says fork, and the row the adapter gives is its own', async () => {
    for (const name of SANDBOX_PROVIDER_NAMES) {
      const row = SANDBOX_PROVIDER_TABLE[name];
      const provider = await SANDBOX_PROVIDER_CODE[name].open({ env: Object.fromEntries(row.keys.map((k) => [k, 'made-up'])) });
      expect({ name, fork: typeof provider.fork === 'function' }).toEqual({ name, fork: row.capabilities.fork });
      expect(provider.capabilities).toEqual(row.capabilities);
    }
  });

  it('has a stand-in for every provider, pointing its SDK at it only through the variables of its row', async () => {
    for (const name of SANDBOX_PROVIDER_NAMES) {
      expect(SANDBOX_PROVIDER_CODE[name].standin).toMatch(/^testing\/[\w-]+\.ts$/);
      const standin = await startStandin(name);
      try {
        const row = SANDBOX_PROVIDER_TABLE[name];
        expect(standin.provider).toBe(name);
        expect(Object.keys(standin.env).filter((v) => !(row.keys as readonly string[]).includes(v) && !(row.endpoints as readonly string[]).includes(v))).toEqual([]);
      } finally {
        await standin.close();
      }
    }
  });
});

describe('a key from the environment or Settings', () => {
  it('an empty variable in the environment does not hide the key saved in Settings', async () => {
    const { credential } = await import('./provider');
    expect(credential({ env: { DAYTONA_API_KEY: '' }, saved: { DAYTONA_API_KEY: 'saved' } }, 'DAYTONA_API_KEY')).toBe('saved');
    expect(credential({ env: { DAYTONA_API_KEY: 'env' }, saved: { DAYTONA_API_KEY: 'saved' } }, 'DAYTONA_API_KEY')).toBe('env');
    expect(credential({ env: { DAYTONA_API_KEY: '' }, saved: {} }, 'DAYTONA_API_KEY')).toBeUndefined();
  });
});
