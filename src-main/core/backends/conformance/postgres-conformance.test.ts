// The conformance suite on the shared memories store (SPEC §13): PostgresStoreBackend on a
// real PostgreSQL from the test set-up must give the other backends' results case for case.
// One database for the file; each case gets a namespace of its own (so an empty store).

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { PostgresStoreBackend } from '../store/store-postgres';
import { createTestDatabase, type TestDatabase } from '../store/testing/postgres';
import { describeBackendConformance } from './suite.test-support';

let database: TestDatabase | undefined;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describeBackendConformance('PostgresStoreBackend', {
  create: async () => {
    if (!database) throw new Error('no test database');
    const backend = new PostgresStoreBackend({ url: database.url, namespace: `conformance-${randomBytes(6).toString('hex')}` });
    return { backend, cleanup: () => backend.close() };
  },
});
