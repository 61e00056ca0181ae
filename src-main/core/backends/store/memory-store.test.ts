// Choosing the memories store: the flag/setting text, how messages name it, what it opens.

import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { describeMemoriesStore, MemoriesStoreSpecError, openMemoryStore, parseMemoriesStore } from './memory-store';
import { StoreBackend } from './store';
import { PostgresStoreBackend } from './store-postgres';
import { runMigrations } from './store-db';
import { STORE_MIGRATIONS } from './store-schema';

describe('parseMemoriesStore', () => {
  it('takes sqlite and postgres URLs', () => {
    expect(parseMemoriesStore('sqlite')).toEqual({ kind: 'sqlite' });
    expect(parseMemoriesStore(' SQLite ')).toEqual({ kind: 'sqlite' });
    expect(parseMemoriesStore('postgres://me:pw@db:5433/team')).toEqual({ kind: 'postgres', url: 'postgres://me:pw@db:5433/team' });
    expect(parseMemoriesStore('postgresql://db/team?sslmode=require')).toEqual({ kind: 'postgres', url: 'postgresql://db/team?sslmode=require' });
  });

  it('refuses anything else, saying why and never echoing a password', () => {
    expect(() => parseMemoriesStore('mysql://me:pw@db/x')).toThrow(MemoriesStoreSpecError);
    expect(() => parseMemoriesStore('mysql://me:pw@db/x')).toThrow(/neither 'sqlite' nor a postgres:\/\/ URL/);
    expect(() => parseMemoriesStore('mysql://me:hunter2@db/x')).not.toThrow(/hunter2/);
    expect(() => parseMemoriesStore('postgres:///team')).toThrow(/names no host/);
    expect(() => parseMemoriesStore('redis')).toThrow(MemoriesStoreSpecError);
  });
});

describe('describeMemoriesStore and openMemoryStore', () => {
  it('name the store without its password and open the matching backend', async () => {
    expect(describeMemoriesStore({ kind: 'sqlite' })).toBe('sqlite (local)');
    expect(describeMemoriesStore({ kind: 'postgres', url: 'postgres://me:hunter2@db:5433/team' })).toBe('postgres://me@db:5433/team');
    const db = new Database(':memory:');
    runMigrations(db, STORE_MIGRATIONS);
    try {
      expect(openMemoryStore({ kind: 'sqlite' }, { db, namespace: 'memories' })).toBeInstanceOf(StoreBackend);
      const pg = openMemoryStore({ kind: 'postgres', url: 'postgres://me:hunter2@127.0.0.1:1/team' }, { db, namespace: 'memories', author: 'user' });
      expect(pg).toBeInstanceOf(PostgresStoreBackend);
      const error = (await pg.read('/x.md')).error;
      expect(error).toMatch(/^memories store postgres:\/\/me@127\.0\.0\.1:1\/team is unreachable: /);
      expect(error).not.toContain('hunter2');
      await pg.close();
    } finally {
      db.close();
    }
  });
});
