// A directory walker with ripgrep's default filtering as Deepdesk configures it: `.git`
// entries are skipped, .gitignore files of the folder are honoured (see fs-gitignore),
// dot files are seen, symlinks are not followed, only regular files are reported.

import fsp from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import path from 'node:path';
import type { GitignoreStack } from './fs-gitignore';
import { ancestorRules, childStack, hasGitDir, isIgnored, loadGitignore } from './fs-gitignore';

export interface WalkOptions {
  /** The project root (real): .gitignore files above it are never read. */
  root: string;
  /** The folder to walk (real, at or below root). It is entered even if ignored, as ripgrep does for an explicit path. */
  start: string;
  /** Called with a folder's path relative to start ('/'-separated); false skips it. */
  enterDir?: (relDir: string) => boolean;
  /** Polled between entries; true ends the walk early. */
  shouldStop?: () => boolean;
}

export interface WalkedFile {
  real: string;
  /** Relative to start, '/'-separated. */
  rel: string;
}

interface Frame {
  real: string;
  rel: string;
  inherited: GitignoreStack;
}

export class Walker {
  /** True once every folder was visited (false after an early stop). */
  completed = false;

  constructor(private readonly options: WalkOptions) {}

  async *files(): AsyncGenerator<WalkedFile> {
    const { root, start, enterDir, shouldStop } = this.options;
    const initial = await ancestorRules(root, start);
    const pending: Frame[] = [{ real: start, rel: '', inherited: initial.stack }];
    while (pending.length > 0) {
      if (shouldStop?.()) return;
      const frame = pending.pop()!;
      let entries: Dirent[];
      try {
        entries = await fsp.readdir(frame.real, { withFileTypes: true });
      } catch {
        continue;
      }
      const stack = await this.stackFor(frame, entries);
      for (const entry of entries) {
        const name = entry.name;
        if (name === '.git') continue;
        const real = path.join(frame.real, name);
        const rel = frame.rel === '' ? name : `${frame.rel}/${name}`;
        if (entry.isDirectory()) {
          if (isIgnored(stack, real, true)) continue;
          if (enterDir && !enterDir(rel)) continue;
          pending.push({ real, rel, inherited: stack });
        } else if (entry.isFile()) {
          if (isIgnored(stack, real, false)) continue;
          yield { real, rel };
          if (shouldStop?.()) return;
        }
      }
    }
    this.completed = true;
  }

  private async stackFor(frame: Frame, entries: Dirent[]): Promise<GitignoreStack> {
    let git = false;
    let gitignore = false;
    for (const e of entries) {
      if (e.name === '.git') git = e.isSymbolicLink() ? await hasGitDir(frame.real) : true;
      else if (e.name === '.gitignore') gitignore = !e.isDirectory();
    }
    const rules = gitignore ? await loadGitignore(frame.real) : null;
    return childStack(frame.inherited, rules, git);
  }
}
