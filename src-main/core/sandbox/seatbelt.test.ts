// The macOS profile as text (sandbox-exec cannot run on Linux): deny by default, reads
// everywhere but the secrets, writes only in the folder and the private temp folder with
// the protected paths carved out after the allow (later rules win in SBPL), no network.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { resolvePolicy } from './policy';
import { sbplString, seatbeltArgs, seatbeltProfile } from './seatbelt';

/** A real folder with a `.git` (the profile protects git's files only where a repository exists). */
const root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-sbpl-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const app = join(root, 'app');
mkdirSync(join(app, '.git'), { recursive: true });
const policy = resolvePolicy(
  { projectDir: app, dataDir: '/Users/ann/.deepdesk', protectedPaths: [join(app, '.env')] },
  { platform: 'darwin', homes: ['/Users/ann'], env: {}, uid: 501 },
);
const profile = seatbeltProfile({ policy, tmpDir: '/var/folders/xy/T/deepdesk-run-1' });

function balanced(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === ';') while (i < text.length && text[i] !== '\n') i++;
    else if (c === '(') depth++;
    else if (c === ')' && --depth < 0) return false;
  }
  return depth === 0 && !inString;
}

describe('seatbelt profile', () => {
  it('is well-formed SBPL that denies by default', () => {
    expect(profile.startsWith('(version 1)\n(deny default)\n')).toBe(true);
    expect(balanced(profile)).toBe(true);
  });

  it('reads everything except the secrets, which are denied after the allow', () => {
    const allowRead = profile.indexOf('(allow file-read*)');
    expect(allowRead).toBeGreaterThan(0);
    for (const secret of ['.ssh', '.aws', '.gnupg', '.config/gh', '.netrc', '.docker', 'Library/Keychains', 'Library/Application Support/Google/Chrome']) {
      const rule = `(subpath "/Users/ann/${secret}")`;
      expect(profile.lastIndexOf(rule), secret).toBeGreaterThan(allowRead);
    }
    expect(profile).toContain('(subpath "/Users/ann/.deepdesk")');
    // Linux-only entries stay out.
    expect(profile).not.toContain('.mozilla');
  });

  it('writes only in the folder and the private temp folder, never the protected paths', () => {
    const allowWrite = profile.indexOf('(allow file-write*');
    const writeRule = profile.slice(allowWrite, profile.indexOf('\n(', allowWrite));
    expect(writeRule).toContain(`(subpath "${app}")`);
    expect(writeRule).toContain('(subpath "/var/folders/xy/T/deepdesk-run-1")');
    expect(writeRule).toContain('(subpath "/private/var/folders/xy/T/deepdesk-run-1")');
    expect(writeRule).not.toContain('(subpath "/Users/ann")');
    const denyWrite = profile.indexOf('(deny file-write*', allowWrite);
    expect(denyWrite).toBeGreaterThan(allowWrite);
    const denied = profile.slice(denyWrite);
    for (const path of ['.git/hooks', '.git/config', '.deepdesk', '.env']) {
      expect(denied).toContain(`(subpath "${app}/${path}")`);
      expect(denied).toContain(`(literal "${app}/${path}")`);
    }
    // The existing .git cannot be moved aside.
    expect(denied).toContain(`(literal "${app}/.git")`);
  });

  it('without a repository, lets git init write (what it leaves is checked after the run)', () => {
    const bare = resolvePolicy({ projectDir: '/Users/ann/new', dataDir: '/Users/ann/.deepdesk' }, { platform: 'darwin', homes: ['/Users/ann'], env: {}, uid: 501 });
    const text = seatbeltProfile({ policy: bare, tmpDir: '/tmp/t' });
    expect(text).not.toContain('/Users/ann/new/.git');
    expect(text).toContain('(subpath "/Users/ann/new/.deepdesk")');
  });

  it('has no network and no broad service access', () => {
    expect(profile).toContain('(deny network*)');
    expect(profile).not.toMatch(/\(allow network/);
    expect(profile).not.toMatch(/\(allow mach-lookup\)/);
    expect(profile).not.toContain('com.apple.coreservices.launchservicesd');
    expect(profile).toContain('(allow signal (target same-sandbox))');
  });

  it('escapes paths so that a folder name cannot end a string early', () => {
    expect(sbplString('/a "b" \\c')).toBe('"/a \\"b\\" \\\\c"');
    const odd = resolvePolicy({ projectDir: '/Users/ann/we"ird)', dataDir: '/d' }, { platform: 'darwin', homes: ['/Users/ann'], env: {}, uid: 501 });
    const text = seatbeltProfile({ policy: odd, tmpDir: '/tmp/t' });
    expect(balanced(text)).toBe(true);
    expect(text).toContain('(subpath "/Users/ann/we\\"ird)")');
  });

  it('keeps the data folder hidden around a worktree: only the worktree is allowed again, after the denies, and its protected paths denied after that', () => {
    // A real worktree layout (the profile protects git's files only where `.git` exists).
    const dataRoot = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-sbpl-')));
    onTestFinished(() => rmSync(dataRoot, { recursive: true, force: true }));
    const data = join(dataRoot, 'data');
    const worktree = join(data, 'worktrees', 'w');
    mkdirSync(worktree, { recursive: true });
    writeFileSync(join(worktree, '.git'), 'gitdir: /Users/ann/app/.git/worktrees/w\n');
    const nested = resolvePolicy({ projectDir: worktree, dataDir: data }, { platform: 'darwin', homes: ['/Users/ann'], env: {}, uid: 501 });
    const text = seatbeltProfile({ policy: nested, tmpDir: '/tmp/t' });
    expect(balanced(text)).toBe(true);
    const hiddenData = `(subpath "${data}")`;
    const lastDeny = text.lastIndexOf(hiddenData);
    expect(text.indexOf(hiddenData)).toBeGreaterThan(text.indexOf('(allow file-read*)'));
    // The worktree, read and written, after the last deny of the data folder.
    const allowProject = text.indexOf(`(allow file-read* file-write*\n  (subpath "${worktree}")`);
    expect(allowProject).toBeGreaterThan(lastDeny);
    // The folders on the way: their metadata only (passed through, not listed), nothing else of the data folder.
    const way = text.indexOf('(allow file-read-metadata');
    expect(way).toBeGreaterThan(lastDeny);
    const wayRule = text.slice(way, text.indexOf('\n(', way));
    expect(wayRule).toContain(`(literal "${data}")`);
    expect(wayRule).toContain(`(literal "${join(data, 'worktrees')}")`);
    expect(wayRule).not.toContain('subpath');
    expect(wayRule).not.toContain(`"${worktree}"`);
    // Then its protected paths and its .git file, denied again.
    const reDeny = text.indexOf('(deny file-write*', allowProject);
    expect(reDeny).toBeGreaterThan(allowProject);
    const denied = text.slice(reDeny, text.indexOf('\n(', reDeny + 1));
    for (const rel of ['.deepdesk', '.mcp.json', '.claude/skills']) expect(denied, rel).toContain(`(subpath "${worktree}/${rel}")`);
    expect(denied).toContain(`(literal "${worktree}/.git")`);
    // Nothing after it allows anything in the data folder.
    expect(text.slice(reDeny)).not.toMatch(/\(allow file-(read|write)/);
    // A folder beside it is not the project's: no allow names it.
    expect(text).not.toContain(`(subpath "${join(data, 'worktrees')}")`);
  });

  it('without a hidden folder around the project, has no second allow of the project', () => {
    expect(profile).not.toContain('(allow file-read-metadata');
    expect(profile.match(/\(allow file-read\* file-write\*/g)).toBeNull();
  });

  it('runs the command through sandbox-exec -p', () => {
    const args = seatbeltArgs({ policy, tmpDir: '/tmp/t' }, '/bin/zsh', ['-c', 'ls']);
    expect(args[0]).toBe('-p');
    expect(args.slice(2)).toEqual(['/bin/zsh', '-c', 'ls']);
  });
});
