// Issue 26 through the app's contract, with real files: the person's JSON files (settings,
// stored keys, folder modes) are never silently reset. An unreadable file is moved aside and
// the person is told in one line; a file with some invalid fields keeps every valid one; two
// apps on one data folder merge their saves and each hears of the other's.

import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp, type App } from './folder-app';
import type { EventFrame, MethodName, Params, Result } from '../contract';
import { FileSecretStore } from '../settings/file-secret-store';
import { SettingsService } from '../settings/settings-service';

let folder: string;
let dataDir: string;
const apps: App[] = [];

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'deepdesk-durable-'));
  dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-durable-data-'));
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  rmSync(folder, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

type Call = <M extends MethodName>(m: M, p: Params<M>) => Promise<Result<M>>;

async function open(): Promise<{ app: App; call: Call; events: EventFrame[]; notices: string[] }> {
  const notices: string[] = [];
  const app = await createApp({
    folder,
    dataDir,
    secrets: new FileSecretStore(dataDir),
    transport: 'web',
    env: { ...process.env, OPENAI_API_KEY: '' },
    onNotice: (notice) => notices.push(notice.message),
  });
  apps.push(app);
  const events: EventFrame[] = [];
  app.onEvent((frame) => events.push(frame));
  const call: Call = (method, params) => app.handle(method, params) as Promise<Result<typeof method>>;
  return { app, call, events, notices };
}

const asideOf = (name: string) => readdirSync(dataDir).filter((f) => f.startsWith(`${name}.corrupt-`));

describe('unreadable is not missing', () => {
  it('truncated settings, keys and folder modes are moved aside, each told in one line, and the next save keeps the copy', async () => {
    const settingsText = '{"model":"anthropic:claude-x","rules":[{"decision":"deny","paths":["/secret/**"]}],"theme":"da';
    const secretsText = '{"api-key:anthropic":"sk-ant-1","api-key:openai":';
    const modesText = `{"${realpathSync(folder)}":{"mode":"edit"`;
    writeFileSync(join(dataDir, 'settings.json'), settingsText);
    writeFileSync(join(dataDir, 'secrets.json'), secretsText);
    writeFileSync(join(dataDir, 'folder-modes.json'), modesText);

    const { call, notices } = await open();

    // Moved aside byte for byte, and the names are free for new files.
    for (const [name, text] of [['settings.json', settingsText], ['secrets.json', secretsText], ['folder-modes.json', modesText]] as const) {
      const aside = asideOf(name);
      expect(aside, name).toHaveLength(1);
      expect(readFileSync(join(dataDir, aside[0]!), 'utf8')).toBe(text);
      expect(existsSync(join(dataDir, name)), name).toBe(false);
    }
    // One line each, naming where the file went; the window gets the same notices.
    expect(notices).toHaveLength(3);
    for (const name of ['settings.json', 'secrets.json', 'folder-modes.json']) {
      const line = notices.find((n) => n.includes(name));
      expect(line, name).toBeDefined();
      expect(line).not.toContain('\n');
      expect(line).toContain(join(dataDir, asideOf(name)[0]!));
    }
    expect((await call('app.notices', {})).map((n) => n.message)).toEqual(notices);
    // Secrets never appear in a notice.
    expect(notices.join('\n')).not.toContain('sk-ant-1');

    // Defaults apply now, and a save writes a new file without touching the copy.
    expect(await call('settings.get', {})).toMatchObject({ model: '', rules: [], theme: 'system' });
    await call('settings.setApiKey', { provider: 'openai', key: 'sk-new' });
    await call('settings.update', { theme: 'dark' });
    expect(JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8'))).toEqual({ 'api-key:openai': 'sk-new' });
    expect(readFileSync(join(dataDir, asideOf('secrets.json')[0]!), 'utf8')).toBe(secretsText);
    expect(readFileSync(join(dataDir, asideOf('settings.json')[0]!), 'utf8')).toBe(settingsText);
  });

  it('garbage that parses but is not an object is moved aside too', async () => {
    writeFileSync(join(dataDir, 'settings.json'), '[1, 2, 3]');
    writeFileSync(join(dataDir, 'secrets.json'), '\u0000\u0000\u0000');
    const { notices } = await open();
    expect(asideOf('settings.json')).toHaveLength(1);
    expect(asideOf('secrets.json')).toHaveLength(1);
    expect(notices).toHaveLength(2);
  });

  it('one invalid value keeps every valid one, and a save of another field leaves it in the file', async () => {
    const stored = {
      model: 'anthropic:claude-x',
      baseUrl: 'http://example.test',
      theme: 'solarized',
      rules: [
        { decision: 'deny', paths: ['/secret/**'] },
        { decision: 'perhaps', tools: ['execute'] },
        { decision: 'allow', commands: ['ls'] },
      ],
      subagents: [],
      fromANewerVersion: { keep: true },
    };
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify(stored));
    const { call, notices } = await open();

    const settings = await call('settings.get', {});
    expect(settings).toMatchObject({ model: 'anthropic:claude-x', baseUrl: 'http://example.test', theme: 'system' });
    expect(settings.rules).toEqual([
      { decision: 'deny', paths: ['/secret/**'] },
      { decision: 'allow', commands: ['ls'] },
    ]);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain('settings.json');
    expect(notices[0]).toContain('theme');
    expect(notices[0]).toContain('rules[1]');
    expect(asideOf('settings.json')).toEqual([]);

    await call('settings.update', { model: 'openai:gpt-x' });
    const saved = JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as Record<string, unknown>;
    expect(saved).toEqual({ ...stored, model: 'openai:gpt-x' });
  });
});

describe('several apps on one data folder', () => {
  it('each save applies its own field to the file as it is now, and the other app hears of it', async () => {
    const a = await open();
    const b = await open();
    await a.call('settings.update', { model: 'anthropic:claude-a' });
    // B's memory is stale; its save of the theme must not undo A's model.
    await b.call('settings.update', { theme: 'light' });
    expect(JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8'))).toMatchObject({ model: 'anthropic:claude-a', theme: 'light' });
    await expect.poll(() => a.call('settings.get', {}), { timeout: 60_000 }).toMatchObject({ model: 'anthropic:claude-a', theme: 'light' });
    expect(await b.call('settings.get', {})).toMatchObject({ model: 'anthropic:claude-a', theme: 'light' });
    // A's window was told, without asking.
    await expect
      .poll(() => a.events.some((e) => e.event === 'settings.changed' && (e.payload as { theme: string }).theme === 'light'), { timeout: 60_000 })
      .toBe(true);

    // Keys and modes too.
    await a.call('settings.setApiKey', { provider: 'anthropic', key: 'sk-a' });
    await b.call('settings.setApiKey', { provider: 'openai', key: 'sk-b' });
    expect(JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8'))).toEqual({ 'api-key:anthropic': 'sk-a', 'api-key:openai': 'sk-b' });
    await expect.poll(async () => (await a.call('settings.get', {})).apiKeys, { timeout: 60_000 }).toMatchObject({ anthropic: true, openai: true });
    await b.call('mode.set', { mode: 'plan' });
    await expect.poll(() => a.events.some((e) => e.event === 'mode.changed' && (e.payload as { mode: string }).mode === 'plan'), { timeout: 60_000 }).toBe(true);
    expect((await a.call('mode.get', {})).mode).toBe('plan');
  });

  it('"always allow" adds its rule to the rules in the file, not to a stale copy', async () => {
    const secrets = new FileSecretStore(dataDir);
    const a = new SettingsService(dataDir, secrets);
    const b = new SettingsService(dataDir, secrets);
    await a.update({ rules: [{ decision: 'deny', paths: ['/secret/**'] }] });
    await b.addRule({ decision: 'allow', tools: ['read_file'] });
    const rules = (JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as { rules: unknown[] }).rules;
    expect(rules).toEqual([{ decision: 'deny', paths: ['/secret/**'] }, { decision: 'allow', tools: ['read_file'] }]);
    expect(b.raw().rules).toEqual(rules);
    a.close();
    b.close();
  });
});
