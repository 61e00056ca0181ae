// Vitest global set-up: a throw-away PostgreSQL cluster for the shared-memories tests, its
// programs found or obtained (system-tools.ts), its URL exported in DEEPDESK_TEST_POSTGRES_URL;
// removed in the teardown. Without PostgreSQL it prints what to install and lets those tests fail.
import { acquirePostgres, realMachine } from './system-tools';
import { announce } from './announce';
import { startPostgresCluster, TEST_POSTGRES_URL_ENV, type PostgresCluster } from './postgres-cluster';

export default async function setup(): Promise<() => void> {
  // The unit and e2e projects both ask for it; one cluster serves both (they run in one process).
  if (process.env[TEST_POSTGRES_URL_ENV]) return () => undefined;
  let cluster: PostgresCluster | undefined;
  const acquired = acquirePostgres(realMachine());
  if (acquired !== null) {
    announce('PostgreSQL', acquired);
    if (acquired.ok) {
      try {
        cluster = await startPostgresCluster(acquired.path);
        process.env[TEST_POSTGRES_URL_ENV] = cluster.url();
      } catch (err) {
        process.stderr.write(`test set-up: the PostgreSQL test cluster did not start: ${err instanceof Error ? err.message : String(err)}\n`);
      }
    }
  }
  return () => cluster?.dispose();
}
