// Backend.changeRefusal: the refusal a change would get, known before it runs (so a tool
// can refuse the call before anyone is asked). Each answer is compared with what the change
// itself returns, and nothing is touched to give it.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createComposite } from './composite';
import { GitMountBackend } from '../git-mount/git-mount';
import { withPolicies } from '../../extensions/hooks/policy-wrapper';
import type { Backend } from '../protocol';
import { readOnlyBackend } from './read-only';
import { StateBackend } from '../store/state';

let tmp: string;
beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-change-refusal-')));
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A backend that fails the test if a change reaches it. */
function untouchable(): StateBackend {
  const inner = new StateBackend();
  const fail = (): never => {
    throw new Error('the change reached the backend');
  };
  inner.write = fail;
  inner.edit = fail;
  inner.delete = fail;
  return inner;
}

describe('readOnlyBackend.changeRefusal', () => {
  it('is the exact text write, edit and delete return, for every path, and touches nothing', async () => {
    const ro = readOnlyBackend(untouchable());
    for (const p of ['/a.md', '/', '/deep/er/new.txt']) {
      expect(await ro.changeRefusal!(p)).toBe(`'${p}' is on a read-only mount`);
      expect(await ro.changeRefusal!(p)).toBe((await ro.write(p, 'x')).error);
      expect(await ro.changeRefusal!(p)).toBe((await ro.edit(p, 'a', 'b')).error);
      expect(await ro.changeRefusal!(p)).toBe((await ro.delete(p)).error);
    }
  });
});

describe('GitMountBackend.changeRefusal', () => {
  it('refuses .git paths with the change\'s own text and clones nothing to say so; other paths: undefined', async () => {
    const cacheRoot = path.join(tmp, 'mounts');
    const m = new GitMountBackend({ url: `file://${tmp}/nowhere.git`, cacheRoot });
    try {
      for (const p of ['/.git/config', '/sub/.GIT/HEAD', '/.git']) {
        const refusal = await m.changeRefusal(p);
        expect(refusal).toMatch(/is inside a \.git folder, which a git mount never reads or writes$/);
        expect(refusal).toBe((await m.write(p, 'x')).error);
        expect(refusal).toBe((await m.delete(p)).error);
      }
      expect(await m.changeRefusal('/notes/git.md')).toBeUndefined();
      expect(await m.changeRefusal('/.github/workflows/ci.yml')).toBeUndefined();
      expect(fs.existsSync(cacheRoot)).toBe(false);
    } finally {
      await m.close();
    }
  });
});

describe('CompositeBackend.changeRefusal', () => {
  const compose = (): { composite: ReturnType<typeof createComposite>; git: GitMountBackend } => {
    const git = new GitMountBackend({ url: `file://${tmp}/nowhere.git`, cacheRoot: path.join(tmp, 'mounts') });
    const composite = createComposite(new StateBackend(), [
      { prefix: '/ref/', backend: readOnlyBackend(untouchable()), listInRoot: 'always' },
      { prefix: '/ref/scratch/', backend: new StateBackend(), listInRoot: 'always' },
      { prefix: '/docs/', backend: git, listInRoot: 'always' },
      { prefix: '/notes/', backend: new StateBackend(), listInRoot: 'always' },
    ]);
    return { composite, git };
  };

  it('routes to the owning mount and puts the prefix back exactly as write does', async () => {
    const { composite, git } = compose();
    try {
      const cases: [string, string | undefined][] = [
        ['/ref/api.md', "'/ref/api.md' is on a read-only mount"],
        ['/ref//b.md', "'/ref/b.md' is on a read-only mount"],
        ['/ref', "'/ref' is on a read-only mount"],
        ['/ref/', "'/ref' is on a read-only mount"],
        ['/docs/.git/config', "'/docs/.git/config' is inside a .git folder, which a git mount never reads or writes"],
        ['/ref/scratch/x.md', undefined], // a writable mount nested in the read-only one
        ['/notes/x.md', undefined],
        ['/docs/guide.md', undefined],
        ['/top.md', undefined], // the default backend has no refusal
      ];
      for (const [p, expected] of cases) {
        expect(await composite.changeRefusal(p)).toBe(expected);
        if (expected !== undefined) expect((await composite.write(p, 'x')).error).toBe(expected);
      }
      // A path no change accepts gets the same error the change would.
      expect(await composite.changeRefusal('/ref/../../x')).toBe((await composite.write('/ref/../../x', 'x')).error);
    } finally {
      await git.close();
    }
  });

  it('asks the default backend too, with the path as given to it', async () => {
    const composite = createComposite(readOnlyBackend(new StateBackend()), [{ prefix: '/notes/', backend: new StateBackend(), listInRoot: 'always' }]);
    expect(await composite.changeRefusal('/x//y.md')).toBe("'/x/y.md' is on a read-only mount");
    expect(await composite.changeRefusal('/notes/y.md')).toBeUndefined();
  });
});

describe('withPolicies and changeRefusal', () => {
  it('passes the inner refusal through without asking the policies, and has none when the inner has none', async () => {
    let asked = 0;
    const policy = () => {
      asked += 1;
      return undefined;
    };
    const wrapped = withPolicies(readOnlyBackend(new StateBackend()), [policy]);
    expect(await wrapped.changeRefusal!('/a.md')).toBe("'/a.md' is on a read-only mount");
    expect(asked).toBe(0);
    const plain: Backend = withPolicies(new StateBackend(), [policy]);
    expect(plain.changeRefusal).toBeUndefined();
  });
});

describe('SkillsBackend.changeRefusal', () => {
  it('refuses every change under /skills/ with the text the change returns, prefix put back', async () => {
    const { SkillsBackend } = await import('./skills-backend');
    const composite = createComposite(new StateBackend(), [{ prefix: '/skills/', backend: new SkillsBackend(() => []), listInRoot: 'when-not-empty' }]);
    for (const p of ['/skills/review/SKILL.md', '/skills/new.md']) {
      const refusal = await composite.changeRefusal!(p);
      expect(refusal).toMatch(/mounted read-only at \/skills\//);
      expect(refusal).toBe((await composite.write(p, 'x')).error);
      expect(refusal).toBe((await composite.edit(p, 'a', 'b')).error);
    }
    expect(await composite.changeRefusal!('/elsewhere.md')).toBeUndefined();
  });
});
