// The conformance suite on a folder over SSH (SPEC §13): RemoteBackend against a real
// sshd on 127.0.0.1 must give the disk backend's results case for case.

import { afterAll, beforeAll } from 'vitest';
import { startTestSshd, type TestSshd } from '../remote/testing/sshd';
import { openTestRemoteFolder } from '../remote/testing/remote-folder';
import { describeBackendConformance } from './suite.test-support';

let sshd: TestSshd | undefined;

beforeAll(async () => {
  sshd = await startTestSshd();
});
afterAll(async () => {
  await sshd?.dispose();
});

describeBackendConformance('RemoteBackend (ssh to 127.0.0.1)', {
  create: async () => {
    if (!sshd) throw new Error('no sshd');
    const folder = openTestRemoteFolder(sshd);
    return { backend: folder.backend, cleanup: async () => folder.remove() };
  },
});
