// Command patterns of permission rules, matched word by word against one simple command
// (its words after quote removal, see shell-parse.ts):
// - the pattern's words must match the command's first words; more words may follow
//   (`npm test` matches `npm test` and `npm test -- --watch`, not `npm tests`);
// - a word that is just `*` matches any number of words (`git * --force`; `ls *` also
//   matches a bare `ls`); a `*` inside a word matches any characters (`git status*`);
// - quotes around a pattern word are removed (`grep "a b"` is the two words grep, a b).

export interface CommandPatternOptions {
  /**
   * Also match when the command is named by a path (`/bin/rm` for the pattern `rm`).
   * Used for deny rules, so that a path cannot dodge them; never for allow rules, where
   * `./git` is a different program from `git`.
   */
  matchBaseName?: boolean;
  /**
   * Per command word: its value is only known when it runs. For deny rules such a word
   * may be anything, any number of words included (`git $x` may be `git push`).
   */
  dynamic?: readonly boolean[];
}

const compiled = new Map<string, (string | RegExp)[]>();

function compile(pattern: string): (string | RegExp)[] {
  let words = compiled.get(pattern);
  if (words === undefined) {
    words = splitPatternWords(pattern).map((w) => {
      if (w === '*' || !w.includes('*')) return w;
      const body = w.split('*').map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*');
      return new RegExp(`^${body}$`, 's');
    });
    compiled.set(pattern, words);
  }
  return words;
}

export function splitPatternWords(pattern: string): string[] {
  const words: string[] = [];
  for (const match of pattern.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(match[1] ?? match[2] ?? match[3] ?? '');
  return words;
}

export function matchesCommandPattern(pattern: string, words: readonly string[], options: CommandPatternOptions = {}): boolean {
  const pw = compile(pattern);
  if (pw.length === 0) return false;
  const dynamic = options.dynamic ?? [];
  if (matchFrom(pw, 0, words, 0, dynamic)) return true;
  const first = words[0];
  if (options.matchBaseName && first !== undefined && first.includes('/')) {
    const base = first.slice(first.lastIndexOf('/') + 1);
    return matchFrom(pw, 0, [base, ...words.slice(1)], 0, dynamic);
  }
  return false;
}

function matchFrom(pw: (string | RegExp)[], pi: number, words: readonly string[], wi: number, dynamic: readonly boolean[]): boolean {
  if (pi === pw.length) return true;
  const p = pw[pi]!;
  if (p === '*') {
    for (let k = wi; k <= words.length; k++) if (matchFrom(pw, pi + 1, words, k, dynamic)) return true;
    return false;
  }
  const word = words[wi];
  if (word === undefined) return false;
  if (dynamic[wi] === true) {
    // A computed word stands for any number of words, so it may cover the rest of the pattern.
    for (let k = pi; k <= pw.length; k++) if (matchFrom(pw, k, words, wi + 1, dynamic)) return true;
    return false;
  }
  const ok = typeof p === 'string' ? p === word : p.test(word);
  return ok && matchFrom(pw, pi + 1, words, wi + 1, dynamic);
}
