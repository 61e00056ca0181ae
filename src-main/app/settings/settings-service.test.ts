import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileSecretStore } from './file-secret-store';
import { SettingsService } from './settings-service';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-settings-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('SettingsService.apiKeyFor', () => {
  it('is the key saved in Settings only: a key in the environment is read by the model factory, from the one table', async () => {
    const service = new SettingsService(dataDir, new FileSecretStore(dataDir));
    expect(await service.apiKeyFor('google')).toBeUndefined();
    await service.setApiKey('google', 'g-stored');
    expect(await service.apiKeyFor('google')).toBe('g-stored');
    service.close();
  });
});

describe('SettingsService mounts and memories store', () => {
  it('keeps valid mounts and stores field by field, drops invalid entries with a notice, and never keeps a password', async () => {
    const { writeFileSync, readFileSync } = await import('node:fs');
    writeFileSync(
      join(dataDir, 'settings.json'),
      JSON.stringify({
        model: 'openai:gpt-4.1',
        mounts: [
          { prefix: '/docs/', spec: 'ro:~/docs' },
          { prefix: '/memories/x/', spec: '/srv' },
          { prefix: '/rel/', spec: 'relative/folder' },
          { prefix: '/kb/', spec: 'git+https://me:secret@example.com/kb.git' },
          { prefix: '/kb2/', spec: 'git+ssh://git@example.com/kb.git#main' },
        ],
        memoriesStore: 'postgres://me:hunter2@127.0.0.1/team',
      }),
    );
    const problems: string[] = [];
    const service = new SettingsService(dataDir, new FileSecretStore(dataDir), { onProblem: (p) => problems.push(p.message) });
    const settings = service.raw();
    expect(settings.model).toBe('openai:gpt-4.1');
    expect(settings.mounts).toEqual([
      { prefix: '/docs/', spec: 'ro:~/docs' },
      { prefix: '/kb2/', spec: 'git+ssh://git@example.com/kb.git#main' },
    ]);
    // The password-bearing URL is not kept (nor shown): the default applies.
    expect(settings.memoriesStore).toBe('sqlite');
    expect(JSON.stringify(await service.get())).not.toContain('hunter2');
    expect(problems.join('\n')).toMatch(/mounts/);
    expect(problems.join('\n')).toMatch(/memoriesStore/);

    await service.putMount({ prefix: '/notes/', spec: '/srv/notes' });
    await service.putMount({ prefix: '/docs/', spec: '/srv/docs' });
    await service.removeMount('/kb2/');
    await service.update({ memoriesStore: 'postgres://me@127.0.0.1:5433/team' });
    expect(service.raw().mounts).toEqual([
      { prefix: '/notes/', spec: '/srv/notes' },
      { prefix: '/docs/', spec: '/srv/docs' },
    ]);
    const onDisk = JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as { memoriesStore: string };
    expect(onDisk.memoriesStore).toBe('postgres://me@127.0.0.1:5433/team');
    service.close();
  });
});

describe('Settings › Agent Protocol', () => {
  it('is off by default, saved as given, and a malformed one is dropped with a notice (nothing listens)', async () => {
    const { writeFileSync, readFileSync } = await import('node:fs');
    const service = new SettingsService(dataDir, new FileSecretStore(dataDir));
    expect(service.raw().agentProtocol).toBeUndefined();
    const on = { listen: '127.0.0.1:2024', allowRemote: false, corsOrigins: ['http://localhost:3000'] };
    await service.update({ agentProtocol: on });
    expect(service.raw().agentProtocol).toEqual(on);
    expect(JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')).agentProtocol).toEqual(on);
    service.close();

    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ model: 'openai:gpt-4.1', agentProtocol: { listen: '[::1]2024', allowRemote: false, corsOrigins: [] } }));
    const problems: string[] = [];
    const again = new SettingsService(dataDir, new FileSecretStore(dataDir), { onProblem: (p) => problems.push(p.message) });
    expect(again.raw().agentProtocol).toBeUndefined();
    expect(again.raw().model).toBe('openai:gpt-4.1');
    expect(problems.join('\n')).toMatch(/agentProtocol/);
    again.close();
  });
});
