// What the window receives when a restore meets a link in a parent folder (SPEC §8): the
// conflict `goes through a link`, marked as never restored, through the contract's schema
// (which drops what it does not name), with "Take the restore" as with "ask".

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../core/checkpoints/store';
import { restoreResultSchema } from '../contract/checkpoints';
import { CheckpointsService } from './checkpoints-service';

let dir: string;
let root: string;
let store: CheckpointStore;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-cp-service-links-')));
  root = path.join(dir, 'project');
  fs.mkdirSync(root);
  execFileSync('git', ['init', '-q'], { cwd: root });
  fs.mkdirSync(path.join(root, '.git', 'hooks'), { recursive: true });
  store = CheckpointStore.open(path.join(dir, 'data'));
});

afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The thread's conversation is not what these tests are about: every hook of it does nothing. */
const conversation = { tell: () => undefined, rewindBlocker: () => null, rewind: () => undefined, putBack: () => 'none' as const, rewinds: () => [] };

describe('the window’s restore and a link in a parent folder', () => {
  it('lists the path as a conflict that is never restored, asked or taken', async () => {
    const options = { store, folder: root, userMessages: () => [{ index: 0, text: 'write a hook' }], onChange: () => undefined, conversation, threads: { reviewedHunks: () => new Set<string>(), markReviewed: () => undefined } };
    const service = new CheckpointsService(options as ConstructorParameters<typeof CheckpointsService>[0]);
    const hook = path.join(root, 'x', 'post-checkout');
    const info = { threadId: 't', messageIndex: 0, messageLine: 'write a hook', tool: 'execute' };
    await service.recorder.step(info, 'all', async () => {});
    await service.recorder.step(info, 'all', async () => {
      fs.mkdirSync(path.dirname(hook));
      fs.writeFileSync(hook, '#!/bin/sh\necho v1\n');
    });
    fs.writeFileSync(path.join(root, 'other.txt'), 'the person’s\n');
    await service.recorder.step(info, 'all', async () => fs.writeFileSync(path.join(root, 'other.txt'), 'the agent’s\n'));
    fs.rmSync(path.join(root, 'x'), { recursive: true });
    fs.symlinkSync('.git/hooks', path.join(root, 'x'));
    fs.writeFileSync(path.join(root, '.git', 'hooks', 'post-checkout'), '#!/bin/sh\necho the person’s hook\n');

    const refused = { path: '/x/post-checkout', reason: 'goes through a link', refused: true };
    const asked = restoreResultSchema.parse(await service.restoreToMessage('t', 0, 'ask'));
    expect(asked.applied).toBe(false);
    expect(asked.conflicts).toContainEqual(refused);

    const taken = restoreResultSchema.parse(await service.restoreToMessage('t', 0, 'take-restore'));
    expect(taken.applied).toBe(true);
    expect(taken.conflicts).toContainEqual(refused);
    expect(fs.readFileSync(path.join(root, '.git', 'hooks', 'post-checkout'), 'utf8')).toBe('#!/bin/sh\necho the person’s hook\n');
    expect(fs.readFileSync(path.join(root, 'other.txt'), 'utf8')).toBe('the person’s\n');
  });
});
