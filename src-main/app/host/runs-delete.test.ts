// Deleting a thread through the host's runs (the Agent Protocol's DELETE): its waiting approvals
// go with it, and the windows on its folder are told so (their approvals list is read again).

import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { newThreadState } from '../../core/agent/types';
import { openDatabase } from '../../core/backends/store/store';
import { ApprovalService } from '../approvals/approval-service';
import { databasePath } from '../base/data-dir';
import { NO_SECRETS } from '../settings/settings-service';
import { ThreadStore } from '../threads/thread-store';
import { HostRuns } from './runs';
import type { RunActivity } from '../session/run-requests';

let dataDir: string;
let db: ReturnType<typeof openDatabase>;
let runs: HostRuns;

beforeEach(() => {
  dataDir = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-runs-delete-')));
  db = openDatabase(databasePath(dataDir));
  runs = new HostRuns({ dataDir, db, version: 'test', secrets: NO_SECRETS });
});
afterEach(async () => {
  await runs.close();
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it("a deleted thread's waiting approvals are gone, and the windows on its folder are told its approvals changed", async () => {
  const threadId = '0190a1b2-0000-7000-8000-0000000000d1';
  new ThreadStore(db).save(newThreadState(threadId), { folder: '/work/project' });
  // An approval waiting, as a window's app keeps it (its own ApprovalService on the same database).
  const windowApprovals = new ApprovalService(db, async () => ({}));
  const asking = new AbortController();
  const decided = windowApprovals.decide({ threadId, toolCallId: 'call-1', toolName: 'write_file', args: { file_path: '/a.txt', content: 'a' }, reason: 'writes a file' }, asking.signal).catch(() => undefined);
  await expect.poll(() => windowApprovals.pending(threadId).length).toBe(1);

  const told: RunActivity[] = [];
  runs.onActivity((activity) => told.push(activity));
  await runs.deleteThread(threadId);

  expect(windowApprovals.pending(threadId)).toEqual([]);
  expect(told).toContainEqual({ kind: 'approvals', threadId, folder: '/work/project' });
  expect(told).toContainEqual({ kind: 'deleted', threadId, folder: '/work/project' });
  asking.abort();
  await decided;
});
