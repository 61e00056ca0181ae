// The installed desktop app started as the agent host (`<app> --deepdesk-agent-host
// --data-dir DIR`, agent-host-entry.ts), over the faked `electron` module: it serves the data
// folder's socket without a window or the single-instance lock, and exits when idle with no
// client. The desktop app starts it so because the installed app cannot run as plain Node.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { HostClient } from '../host-client/client';
import { AGENT_HOST_SWITCH, agentHostArgs, desktopHostLaunch } from './agent-host-entry';
import { fake } from './testing/fake-electron';

vi.mock('electron', async () => (await import('./testing/fake-electron')).electron);

const dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-electron-host-'));
const argv = process.argv;
process.argv = ['deepdesk', AGENT_HOST_SWITCH, '--data-dir', dataDir, '--idle-seconds', '0.5'];
await import('../../desktop-main');
process.argv = argv;

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the desktop app’s binary as the agent host', () => {
  it('serves the data folder’s socket with no window and no single-instance lock, and exits 0 once idle with no client', async () => {
    const client = await vi.waitFor(() => HostClient.connect({ dataDir, client: 'test', version: '', start: false }), { timeout: 60_000, interval: 50 });
    expect(client.hostPid).toBe(process.pid);
    expect(await client.request('runs.list')).toEqual({ agents: [] });
    expect(fake.windows).toEqual([]);
    expect(fake.lockData).toBeUndefined();
    expect(fake.exits).toEqual([]);
    await client.close();
    await vi.waitFor(() => expect(fake.exits).toEqual([0]), { timeout: 60_000 });
  });

  it('is how the installed app starts it; unpackaged, or outside Electron, the CLI’s `deepdesk host` is', () => {
    const env = { A: '1' };
    expect(desktopHostLaunch({ packaged: true, electron: true, execPath: '/opt/Deepdesk/deepdesk', dataDir: '/d', env })).toEqual({
      file: '/opt/Deepdesk/deepdesk',
      args: [AGENT_HOST_SWITCH, '--data-dir', '/d'],
      env,
    });
    expect(desktopHostLaunch({ packaged: false, electron: true, execPath: '/x/electron', dataDir: '/d', env }).args.slice(-3)).toEqual(['host', '--data-dir', '/d']);
    expect(desktopHostLaunch({ packaged: true, electron: false, execPath: process.execPath, dataDir: '/d', env }).args.slice(-3)).toEqual(['host', '--data-dir', '/d']);
    expect(agentHostArgs(['/opt/Deepdesk/deepdesk', AGENT_HOST_SWITCH, '--data-dir', '/d'])).toEqual(['--data-dir', '/d']);
    expect(agentHostArgs(['/opt/Deepdesk/deepdesk', '/some/folder'])).toBeUndefined();
  });
});
