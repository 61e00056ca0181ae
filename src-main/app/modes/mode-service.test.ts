// A worktree or sandbox folder of a project has the project's mode and answer to the offer of
// modes (issue 62 §27): the offer is answered once per project, not once per new worktree.

import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModeService } from './mode-service';

const sandbox = { available: true as const, kind: 'bubblewrap' as const };
let root: string;
let dataDir: string;
let project: string;
const open: ModeService[] = [];

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'dd-modes-')));
  dataDir = join(root, 'data');
  project = join(root, 'project');
  for (const dir of [dataDir, project, join(root, 'wt-a'), join(root, 'wt-b')]) mkdirSync(dir);
});
afterEach(() => {
  open.splice(0).forEach((m) => m.close());
  rmSync(root, { recursive: true, force: true });
});

const modes = (folder: string, of?: string): ModeService => {
  const m = new ModeService(dataDir, folder, sandbox, of !== undefined ? { project: of } : {});
  open.push(m);
  return m;
};

describe('a worktree of a project', () => {
  it('the offer answered in one worktree is answered for the project and every other worktree of it', () => {
    expect(modes(join(root, 'wt-a'), project).get()).toMatchObject({ chosen: false, offerShown: false, offerDismissed: false });
    modes(join(root, 'wt-a'), project).offer('dismissed');
    expect(modes(project).get()).toMatchObject({ offerShown: true, offerDismissed: true });
    expect(modes(join(root, 'wt-b'), project).get()).toMatchObject({ offerShown: true, offerDismissed: true });
    // A folder of no project is not concerned.
    expect(modes(join(root, 'wt-b')).get()).toMatchObject({ offerShown: false, offerDismissed: false });
  });

  it("has the project's mode until one is chosen there, and its own after", () => {
    modes(project).set('edit');
    const tree = modes(join(root, 'wt-a'), project);
    expect(tree.get()).toMatchObject({ mode: 'edit', chosen: true });
    tree.set('plan');
    expect(modes(join(root, 'wt-a'), project).get().mode).toBe('plan');
    expect(modes(project).get().mode).toBe('edit');
  });
});
