// Worktree names: `[a-z0-9][a-z0-9._-]{0,62}`, also a valid git branch name once prefixed with
// `deepdesk/` and a folder name under `<data-dir>/worktrees/`. A name not given is made up:
// from the first words of a hint (the prompt, the thread's title) when it has some, else
// `wt-` and five random characters; a few random characters keep it unique.


const WORKTREE_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}$/;
export const BRANCH_PREFIX = 'deepdesk/';

/** Why `name` cannot be a worktree's name, or undefined when it can. */
export function nameProblem(name: string): string | undefined {
  if (!WORKTREE_NAME_PATTERN.test(name)) {
    return `'${name}' is not a worktree name: use 1 to 63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit`;
  }
  // What git refuses in a branch name that the pattern lets through.
  if (name.includes('..')) return `'${name}' is not a worktree name: it may not contain '..'`;
  if (name.endsWith('.') || name.endsWith('.lock')) return `'${name}' is not a worktree name: it may not end with '.' or '.lock'`;
  return undefined;
}

const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
/** Words that say nothing about the work. */
const FILLER = new Set(['a', 'an', 'the', 'to', 'of', 'in', 'on', 'for', 'and', 'or', 'with', 'please', 'can', 'you', 'could', 'would', 'this', 'that', 'it', 'my', 'our', 'me', 'us', 'is', 'be', 'let', 'lets', "let's"]);

function randomChars(n: number): string {
  let out = '';
  // node:crypto is loaded when a name is made, not by every command that checks one.
  const { randomInt } = process.getBuiltinModule('node:crypto');
  for (let i = 0; i < n; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** A readable name: `fix-parser-k3x9` from "Fix the parser…", else `wt-k3x9m`. */
export function generateName(hint?: string): string {
  const words = (hint ?? '')
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '' && !FILLER.has(w))
    .slice(0, 2)
    .map((w) => w.slice(0, 12));
  const stem = words.join('-');
  return stem === '' ? `wt-${randomChars(5)}` : `${stem}-${randomChars(4)}`;
}
