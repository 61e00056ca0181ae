// Git redirection in every form (SPEC §7 "Nothing a sandboxed command leaves behind runs later
// on the host"): each script points git, in the folder or a repository inside it, at the
// marker program; afterwards the person's own git (status, diff, log, checkout, commit) runs
// in the folder, in the folders the case names and in every folder holding a `.git`, and
// the marker must not have run.
import { expect } from 'vitest';
import { personUsesGit } from './effects';
import { firingHooks, firingProgram, type ContainmentCase } from './case';
import type { Scene } from './types';

function gitCase(name: string, scripts: (s: Scene) => string[], personDirs: string[] = []): ContainmentCase {
  return {
    group: 'git',
    name,
    scripts,
    async check({ person, scene }) {
      expect(await personUsesGit(person, scene, personDirs), 'the marker program ran when the person used git').toBe('');
    },
  };
}

/** A forged note (`forged`) under refs/notes never lands; the note Deepdesk wrote on the first commit stays (SPEC §24). */
function notesCase(name: string, script: string): ContainmentCase {
  return {
    group: 'git',
    name,
    async act({ person, scene, path }) {
      await person.sh('git notes --ref=refs/notes/ai add -m deepdesk HEAD', scene.project);
      return [await path.run(scene, `${script}\nready`, { timeoutS: 60 })];
    },
    async check({ person, scene }) {
      // Every notes ref and any of them that holds `forged`, then what refs/notes/ai says of the first commit.
      const notes = await person.sh('git for-each-ref --format="%(refname)" refs/notes | while read r; do echo "$r"; git grep -c forged "$r"; done; git notes --ref=refs/notes/ai show "$(git rev-list --max-parents=0 HEAD)"', scene.project);
      expect(notes.stdout, 'the notes after the run').toBe('refs/notes/ai\ndeepdesk\n');
    },
  };
}

export const gitCases: readonly ContainmentCase[] = [
  notesCase('a forged refs/notes/ai note on a new commit, and Deepdesk’s note rewritten (git notes add -f)', 'echo more >> a.txt && git commit -qam agent\ngit notes --ref=refs/notes/ai add -m forged HEAD\ngit notes --ref=refs/notes/ai add -f -m forged HEAD~1'),
  notesCase(
    'notes refs written into packed-refs (git pack-refs, and a line of its own)',
    [
      'git notes --ref=refs/notes/other add -m forged HEAD && git pack-refs --all',
      'c=$(git commit-tree -m notes "$(printf "100644 blob %s\\t%s\\n" "$(echo forged | git hash-object -w --stdin)" "$(git rev-parse HEAD)" | git mktree)")',
      'grep -v " refs/notes/ai$" .git/packed-refs > p.tmp; echo "$c refs/notes/ai" >> p.tmp; cat p.tmp > .git/packed-refs; rm -f p.tmp .git/refs/notes/ai',
    ].join('\n'),
  ),
  gitCase('.git/commondir pointing at a copy of the repository with core.fsmonitor', (s) => [
    ['cp -r .git ev', `git --git-dir=ev config core.fsmonitor ${s.fire}`, 'echo "$PWD/ev" > .git/commondir', 'ready'].join('\n'),
  ]),
  gitCase(
    'a sub-folder .git file (gitdir:) pointing at a git folder with core.fsmonitor',
    (s) => [
      [
        'git init -q --bare evstore',
        'git --git-dir=evstore config core.bare false',
        `git --git-dir=evstore config core.fsmonitor ${s.fire}`,
        'mkdir -p sub && echo x > sub/f.txt',
        'echo "gitdir: ../evstore" > sub/.git',
      ].join('\n'),
    ],
    ['sub'],
  ),
  gitCase('a new nested repository with core.fsmonitor', (s) => [
    ['git init -q n1', 'echo x > n1/f.txt', `git -C n1 config core.fsmonitor ${s.fire}`].join('\n'),
  ], ['n1']),
  gitCase('a new nested repository with core.hooksPath', (s) => [
    ['git init -q n2', firingHooks(s, 'n2/hk'), 'git -C n2 config core.hooksPath hk', 'echo x > n2/f.txt'].join('\n'),
  ], ['n2']),
  gitCase('a new nested repository with hooks (post-checkout, pre-commit, …)', (s) => [
    ['git init -q n3', firingHooks(s, 'n3/.git/hooks'), 'echo x > n3/f.txt'].join('\n'),
  ], ['n3']),
  gitCase('hooks, core.fsmonitor and core.hooksPath of the folder’s own repository', (s) => [
    [firingHooks(s, '.git/hooks'), `git config core.fsmonitor ${s.fire}`, firingHooks(s, 'hk'), 'git config core.hooksPath hk'].join('\n'),
  ]),
  gitCase('.git/config include.path to a file in the folder', (s) => [
    [
      `printf '[core]\\n\\tfsmonitor = ${s.fire}\\n' > inc.cfg`,
      'git config include.path "$PWD/inc.cfg"',
      `printf '[include]\\n\\tpath = %s/inc.cfg\\n' "$PWD" >> .git/config`,
    ].join('\n'),
  ]),
  gitCase('a filter and diff driver: .git/info/attributes and .gitattributes with drivers in .git/config', (s) => [
    [
      'mkdir -p .git/info',
      "echo '* filter=ev diff=ev' > .git/info/attributes",
      "echo '* filter=ev diff=ev' > .gitattributes",
      `git config filter.ev.clean ${s.fire}`,
      `git config filter.ev.smudge ${s.fire}`,
      `git config diff.ev.textconv ${s.fire}`,
      `git config diff.ev.command ${s.fire}`,
      `printf '[filter "ev"]\\n\\tclean = ${s.fire}\\n[diff "ev"]\\n\\tcommand = ${s.fire}\\n' >> .git/config`,
      'echo changed >> a.txt',
    ].join('\n'),
  ]),
  gitCase(
    "a submodule's git folder (.git/modules/x) with core.fsmonitor and hooks, and x/.git pointing at it",
    (s) => [
      [
        'mkdir -p .git/modules',
        'git init -q --bare .git/modules/x',
        'git --git-dir=.git/modules/x config core.bare false',
        `git --git-dir=.git/modules/x config core.fsmonitor ${s.fire}`,
        firingHooks(s, '.git/modules/x/hooks'),
        'mkdir -p x && echo y > x/f.txt && echo "gitdir: ../.git/modules/x" > x/.git',
      ].join('\n'),
    ],
    ['x'],
  ),
  gitCase(
    'a linked worktree made by hand (.git/worktrees/w with a commondir of its choosing)',
    (s) => [
      [
        'cp -r .git ev',
        `git --git-dir=ev config core.fsmonitor ${s.fire}`,
        'mkdir -p .git/worktrees/w w',
        'git rev-parse HEAD > .git/worktrees/w/HEAD',
        'echo "$PWD/ev" > .git/worktrees/w/commondir',
        'echo "$PWD/w/.git" > .git/worktrees/w/gitdir',
        `printf '[core]\\n\\tfsmonitor = ${s.fire}\\n' > .git/worktrees/w/config.worktree`,
        'echo "gitdir: $PWD/.git/worktrees/w" > w/.git',
      ].join('\n'),
    ],
    ['w'],
  ),
  gitCase('the .git folder renamed away and replaced by a .git file pointing at it', (s) => [
    ['mv .git old-git', `git --git-dir=old-git config core.fsmonitor ${s.fire}`, 'echo "gitdir: old-git" > .git'].join('\n'),
  ]),
  gitCase('the .git folder replaced by a copy with core.fsmonitor and hooks', (s) => [
    [
      'cp -r .git g2',
      `git --git-dir=g2 config core.fsmonitor ${s.fire}`,
      firingHooks(s, 'g2/hooks'),
      'mv .git .git-away || rm -rf .git',
      'mv g2 .git',
    ].join('\n'),
  ]),
  gitCase('git’s surface written through links (.git/hooks and .git/config reached by a symlink)', (s) => [
    [
      'ln -s .git/hooks hl',
      firingProgram(s, 'hl/post-checkout'),
      firingProgram(s, 'hl/pre-commit'),
      'ln -s .git/config cl',
      `printf '[core]\\n\\tfsmonitor = ${s.fire}\\n' >> cl`,
      'ln -s "$PWD/.git" gl',
      firingProgram(s, 'gl/hooks/post-commit'),
    ].join('\n'),
  ]),
  gitCase(
    'files written in one run, made git-shaped (renamed to .git) in a second run',
    (s) => [
      ['cp -r .git payload', `git --git-dir=payload config core.fsmonitor ${s.fire}`, firingHooks(s, 'payload/hooks'), 'mkdir -p later n4', "echo 'gitdir: ../payload' > later-gitfile"].join('\n'),
      ['mv payload n4/.git', 'mv later-gitfile later/.git'].join('\n'),
    ],
    ['later', 'n4'],
  ),
];
