// Judging git config files: what runs nothing, what is kept of an unsafe one, and what a
// config names on disk (includes, a hooks folder, programs).
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, inertPart, isInertConfig, namedFiles, parseConfig } from './config';

describe('git config', () => {
  it('a fresh repository config is inert; any key that runs a program is not', () => {
    expect(isInertConfig(DEFAULT_CONFIG)).toBe(true);
    for (const key of ['fsmonitor = x', 'hooksPath = /tmp', 'sshCommand = x', 'pager = x', 'editor = x']) {
      expect(isInertConfig(`${DEFAULT_CONFIG}\t${key}\n`)).toBe(false);
    }
    expect(isInertConfig('[include]\n\tpath = ../x\n')).toBe(false);
    expect(isInertConfig('[diff "x"]\n\ttextconv = ./t.sh\n')).toBe(false);
    expect(isInertConfig('[alias]\n\tst = !sh x\n')).toBe(false);
    // A line continued onto the next, or text git may read otherwise: not judged, not inert.
    expect(isInertConfig('[core]\n\tbare = false \\\n\tfsmonitor = x\n')).toBe(false);
  });

  it('the inert part keeps the safe keys with their values and parses again', () => {
    const kept = inertPart('[core]\n\tbare = false\n\tfsmonitor = "./evil.sh"\n[remote "origin"]\n\turl = https://x/y.git\n[user]\n\tname = "A B"\n');
    expect(isInertConfig(kept)).toBe(true);
    expect(parseConfig(kept)).toEqual([
      { key: 'core.bare', value: 'false' },
      { key: 'remote.origin.url', value: 'https://x/y.git' },
      { key: 'user.name', value: 'A B' },
    ]);
    expect(inertPart('not a config')).toBe(DEFAULT_CONFIG);
  });

  it('names the files git reads or runs: includes, the hooks path and programs given as paths', () => {
    const text = '[include]\n\tpath = ../team.gitconfig\n[includeIf "gitdir:~/w/"]\n\tpath = ~/w.gitconfig\n[core]\n\thooksPath = .husky/_\n\tfsmonitor = ./watch.sh --x\n\tpager = less\n';
    const named = namedFiles(text, '/p/.git/config', '/p', '/home/u');
    expect(named.includes).toEqual(['/p/team.gitconfig', '/home/u/w.gitconfig']);
    expect(named.hookFolders).toEqual(['/p/.husky/_']);
    expect(named.programs).toEqual(['/p/watch.sh', '/p/.git/watch.sh']);
  });
});
