// The wiring of `deepdesk host --listen` (listen.ts): the context each listener's routes get
// (its default folder, which folders runs may use), checked against a route of this test's.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newThreadState } from '../../../core/agent/types';
import { openDatabase } from '../../../core/backends/store/store';
import { databasePath } from '../../base/data-dir';
import { RecentFolders } from '../../places/recent-folders';
import { NO_SECRETS } from '../../settings/settings-service';
import { ThreadStore } from '../../threads/thread-store';
import { HostRuns } from '../../host/runs';
import type { ProtocolContext } from './context';
import { json, type Route } from './http';
import { listenProtocol, openedInDeepdesk, type ProtocolHostContext } from './listen';
import { checkListenRequest } from '../../contract/protocol-listen';
import { protocolKey } from './protocol-key';

describe('listening on the Agent Protocol', () => {
  let root: string;
  let dataDir: string;
  let db: ReturnType<typeof openDatabase>;
  let runs: HostRuns;
  let recent: RecentFolders;
  let host: ProtocolHostContext;
  const folder = (name: string): string => {
    const path = join(root, name);
    mkdirSync(path, { recursive: true });
    return path;
  };

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'protocol-listen-')));
    dataDir = join(root, 'data');
    db = openDatabase(databasePath((mkdirSync(dataDir), dataDir)));
    runs = new HostRuns({ dataDir, db, version: 'test', secrets: NO_SECRETS });
    recent = new RecentFolders(dataDir);
    host = { dataDir, db, runs, env: {}, version: '9.9.9', log: () => {}, openedBefore: openedInDeepdesk(() => recent, new ThreadStore(db)) };
  });
  afterEach(async () => {
    recent.close();
    await runs.close();
    db.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** A listener with `folder` as its --folder; what its routes were given. */
  async function contextOf(request: { folder?: string }): Promise<ProtocolContext> {
    let given: ProtocolContext | undefined;
    const server = await listenProtocol(host, { listen: '127.0.0.1:0', ...request }, (context) => {
      given = context;
      return [];
    });
    await server.close();
    return given!;
  }

  it('allows runs in its --folder, a folder opened in the window and a folder with threads; refuses any other saying how to allow it', async () => {
    const flagged = folder('flagged');
    const opened = folder('opened');
    const threaded = folder('threaded');
    const never = folder('never');
    recent.remember(opened);
    new ThreadStore(db).save(newThreadState('t-1'), { folder: threaded });
    new ThreadStore(db).save(newThreadState('t-2'), { folder: join(never, 'inner') });
    const context = await contextOf({ folder: flagged });
    expect(context.defaultFolder).toBe(flagged);
    expect(context.version).toBe('9.9.9');
    expect(context.folderRefusal(flagged)).toBeUndefined();
    expect(context.folderRefusal(`${flagged}/`)).toBeUndefined();
    expect(context.folderRefusal(opened)).toBeUndefined();
    expect(context.folderRefusal(threaded)).toBeUndefined();
    // A thread in a folder inside it is not the folder opened.
    expect(context.folderRefusal(never)).toBe(`folder ${never} was never opened in Deepdesk: open it once, or start the host with --folder ${never}`);
    const without = await contextOf({});
    expect(without.defaultFolder).toBeUndefined();
    expect(without.folderRefusal(flagged)).toMatch(/was never opened in Deepdesk/);
  });

  it('takes a folder by its real path: a link to an opened folder (or to --folder) is that folder; a link from an opened path to elsewhere is not', async () => {
    const flagged = folder('flagged');
    const opened = folder('opened');
    const threaded = folder('threaded');
    const never = folder('never');
    recent.remember(opened);
    new ThreadStore(db).save(newThreadState('t-3'), { folder: threaded });
    const links = folder('links');
    for (const [name, target] of [['to-flagged', flagged], ['to-opened', opened], ['to-threaded', threaded], ['to-never', never]] as const) symlinkSync(target, join(links, name));
    const context = await contextOf({ folder: flagged });
    expect(context.folderRefusal(join(links, 'to-flagged'))).toBeUndefined();
    expect(context.folderRefusal(join(links, 'to-opened'))).toBeUndefined();
    expect(context.folderRefusal(join(links, 'to-threaded'))).toBeUndefined();
    expect(context.folderRefusal(join(links, 'to-never'))).toMatch(/was never opened in Deepdesk/);
    // An opened folder opened through a link is the folder it leads to.
    recent.remember(join(links, 'to-never'));
    expect(context.folderRefusal(never)).toBeUndefined();
  });

  it("makes the key when it starts listening, and serves the routes it is given under it", async () => {
    const route: Route = { method: 'GET', pattern: '/probe/:name', handle: async (request) => json({ name: request.params.name }) };
    const server = await listenProtocol(host, { listen: '0' }, () => [route]);
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const key = protocolKey(dataDir);
      const reply = await fetch(`${server.url}/probe/x`, { headers: { 'x-api-key': key } });
      expect(await reply.json()).toEqual({ name: 'x' });
      expect((await fetch(`${server.url}/probe/x`)).status).toBe(403);
    } finally {
      await server.close();
    }
  });

  it('refuses what is not to be listened on, before anything listens', async () => {
    expect(checkListenRequest({ listen: '0.0.0.0:1' })).toEqual({ error: expect.stringMatching(/--allow-remote/) });
    expect(checkListenRequest({ listen: '0.0.0.0:1', allowRemote: true })).toHaveProperty('address');
    expect(checkListenRequest({ listen: '1', corsOrigins: ['http://a.example/'] })).toEqual({ error: expect.stringMatching(/is not an origin/) });
    expect(checkListenRequest({ listen: '1', folder: 'rel' })).toEqual({ error: '--folder rel is not an absolute path' });
    await expect(listenProtocol(host, { listen: '[::]:0' }, () => [])).rejects.toThrow(/not a loopback address/);
  });
});
