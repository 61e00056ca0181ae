// For tests: a fresh database on the test set-up's PostgreSQL cluster
// (scripts/test-setup/global-setup-postgres.ts), one per call, dropped afterwards.

import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { TEST_POSTGRES_URL_ENV } from '../../../../../scripts/test-setup/postgres-cluster';

export { startPostgresCluster, type PostgresCluster } from '../../../../../scripts/test-setup/postgres-cluster';

/** The cluster's URL; throws the set-up's instruction when it did not start one. */
export function testPostgresUrl(): string {
  const url = process.env[TEST_POSTGRES_URL_ENV];
  if (!url) {
    throw new Error(`no PostgreSQL test cluster (${TEST_POSTGRES_URL_ENV} is unset): run the tests through vitest's unit project, whose set-up starts one (see its line above about installing PostgreSQL)`);
  }
  return url;
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Runs SQL on the cluster's maintenance database. */
export async function adminQuery(sql: string, url = testPostgresUrl()): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** CREATE DATABASE with a unique name; drop() ends its connections and removes it. */
export async function createTestDatabase(clusterUrl = testPostgresUrl()): Promise<TestDatabase> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`, clusterUrl);
  const url = new URL(clusterUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, clusterUrl),
  };
}
