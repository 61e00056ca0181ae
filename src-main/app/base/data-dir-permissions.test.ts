// issue 9 §7: the data folder and deepdesk.db (+ -wal/-shm, secrets, settings) are
// readable by the owner only, checked with real stat modes under an ordinary umask.

import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDatabase } from '../../core/backends/store/store';
import { FileSecretStore } from '../settings/file-secret-store';
import { databasePath, resolveDataDir } from './data-dir';

const mode = (path: string) => statSync(path).mode & 0o777;
let root: string;
let umask: number;

beforeEach(() => {
  umask = process.umask(0o022);
  root = mkdtempSync(join(tmpdir(), 'deepdesk-perms-'));
  chmodSync(root, 0o755);
});
afterEach(() => {
  process.umask(umask);
  rmSync(root, { recursive: true, force: true });
});

it('a new data folder is 0700 and the database with its -wal and -shm files 0600', async () => {
  const dir = resolveDataDir(join(root, 'new', 'data'));
  expect(mode(dir)).toBe(0o700);
  const db = openDatabase(databasePath(dir));
  db.exec('CREATE TABLE t (x TEXT); INSERT INTO t VALUES (\'secret thread\')');
  for (const f of ['deepdesk.db', 'deepdesk.db-wal', 'deepdesk.db-shm']) {
    expect(existsSync(join(dir, f)), f).toBe(true);
    expect(mode(join(dir, f)), f).toBe(0o600);
  }
  db.close();
  await new FileSecretStore(dir).set('api-key:openai', 'sk-x');
  expect(mode(join(dir, 'secrets.json'))).toBe(0o600);
});

it('an existing Deepdesk folder and database with wider modes are tightened', () => {
  const dir = join(root, 'old');
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, 'deepdesk.db'), '');
  chmodSync(join(dir, 'deepdesk.db'), 0o644);
  expect(resolveDataDir(dir)).toBe(dir);
  expect(mode(dir)).toBe(0o700);
  openDatabase(databasePath(dir)).close();
  expect(mode(join(dir, 'deepdesk.db'))).toBe(0o600);
});

it('a folder the person chose that holds other things keeps its mode; the database is still 0600', () => {
  const dir = join(root, 'shared');
  mkdirSync(dir);
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, 'notes.txt'), 'mine');
  resolveDataDir(dir);
  expect(mode(dir)).toBe(0o755);
  openDatabase(databasePath(dir)).close();
  expect(mode(join(dir, 'deepdesk.db'))).toBe(0o600);
});

it('the real CLI creates its data folder owner-only', () => {
  const repo = resolve(import.meta.dirname, '../../..');
  if (!existsSync(join(repo, 'out/main/cli.js'))) throw new Error('run `npm run build` before the CLI tests (npm test does)');
  const dir = join(root, 'cli-data');
  const r = spawnSync(process.execPath, [join(repo, 'bin/deepdesk.mjs'), 'memories', 'ls', '--data-dir', dir], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  expect(mode(dir)).toBe(0o700);
  expect(mode(join(dir, 'deepdesk.db'))).toBe(0o600);
});
