// The held-off settings of held-off-config.ts for a git that runs somewhere else (a folder over
// SSH, through the thread's own command path): a POSIX sh prelude that leaves in "$@" the `-c`
// options to give before git's subcommand. The same table, read where git runs: every key the
// config there sets that names a program (REPOSITORY_CODE_KEYS, any scope: there is no reading
// of whose file it is from here, so the person's own drivers are held off too) is given its
// value that runs nothing, and ALWAYS_HELD is given as it is. Nothing the repository's config
// names runs, and nothing of it shapes what git prints (a textconv, a pager).
import { shQuote } from '../text/shell-quote';
import { ALWAYS_HELD, REPOSITORY_CODE_KEYS } from './held-off-config';

/** The union of the table's keys, as the extended regular expression `git config --get-regexp` takes. */
const ANY_CODE_KEY = REPOSITORY_CODE_KEYS.map((row) => `(${row.key.source})`).join('|');

/** The prelude's exit status when something cannot be held off. */
export const HELD_OFF_REFUSED = 97;

/** `git --no-pager "$@" SUBCOMMAND …` after this holds everything off. */
export function heldOffGitPrelude(): string {
  const neutralOf = REPOSITORY_CODE_KEYS.map((row, i) => `${i === 0 ? 'if' : 'elif'} printf '%s\\n' "$k" | grep -Eq ${shQuote(row.key.source)}; then v=${shQuote(row.neutral)}`);
  return [
    `set -- ${ALWAYS_HELD.map((setting) => `-c ${shQuote(setting)}`).join(' ')}`,
    'while IFS= read -r k; do',
    '  [ -n "$k" ] || continue',
    // `-c` splits at the first `=`: a key with one in its name could not be held off. Fail closed.
    `  case $k in *=*) printf '%s\\n' 'a config key names a program and holds an =' >&2; exit ${HELD_OFF_REFUSED} ;; esac`,
    `  ${neutralOf.join('\n  ')}`,
    // Matched by the union but by no row: cannot happen; held off as empty all the same.
    "  else v=''; fi",
    '  set -- "$@" -c "$k=$v"',
    'done <<EOF',
    `$(git config --name-only --get-regexp ${shQuote(ANY_CODE_KEY)} 2>/dev/null)`,
    'EOF',
  ].join('\n');
}
