// The POSIX shell scripts the script backend (script-backend.ts) runs at a `files` place (a
// provider's sandbox, SPEC §18), one per file operation, as Deep Agents' BaseSandbox builds its
// file tools on execute: they look, list, check and move files, and file contents travel only
// through the place's upload and download (a write is uploaded to a temp file in the workdir, then checked and renamed into
// place by COMMIT; a read resolves the path here, then downloads it, or a small file comes with
// the answer of the script that checked it, as Deep Agents' BaseSandbox reads text).
//
// Every script runs after PRELUDE, with the workdir then its own arguments as positional
// parameters (always shQuote'd by the caller), never spliced into its text. A reply is the
// mark, one status line (`ok`, `missing`, `outside`, …) and a payload (script-replies.ts
// parseReply); the batch scripts answer `status\0payload\0` per item instead. Stderr is
// dropped: a provider hands stdout and stderr back interleaved.
//
// The tools are GNU coreutils, findutils and grep (`realpath -e`, `stat -c`, `find -printf`,
// `mv -T`, `xargs -0`), as in the usual sandbox images; no python, node or perl.

import { REPLY_MARK } from './script-replies';
import { shQuote } from '../../text/shell-quote';

const D = '$';

/**
 * Sets ROOT (the workdir's real path; empty when it is gone), prints it before the mark, and the
 * path helpers. `rp` gives an existing path's real path as `realpath -e` does, without a process
 * in the usual case (a process costs milliseconds in a sandbox, the most of a script's own time):
 * the folders by the shell's `cd -P`, which resolves every link on the way; a last component
 * that is itself a link (or `.`, `..`, a relative path) by realpath. Scripts run in `/` and
 * return there.
 */
export const PRELUDE = String.raw`
exec 2>/dev/null
export LC_ALL=C
rp() {
  _b=${D}{1##*/}; _d=${D}{1%/*}; [ -n "$_d" ] || _d=/
  case $1 in /*) ;; *) _b=;; esac
  case $_b in ''|.|..) ;; *)
    if [ ! -L "$1" ] && [ -e "$1" ] && cd -P -- "$_d"; then
      if [ "$PWD" = / ]; then _r=/$_b; else _r=$PWD/$_b; fi
      cd /; return 0
    fi;;
  esac
  cd /; _r=$(realpath -e -- "$1" && printf x) || return 1; _r=${D}{_r%??}
}
rp "$1" && ROOT=$_r || ROOT=
shift
printf '%s\0%s' "$ROOT" ${shQuote(REPLY_MARK)}
inside() { [ "$ROOT" = / ] && return 0; case $1 in "$ROOT"|"$ROOT"/*) return 0;; esac; return 1; }
res() {
  [ -n "$ROOT" ] || return 3
  if [ -z "$1" ]; then _c=$ROOT; else _c=${D}{ROOT%/}/$1; fi
  if rp "$_c"; then inside "$_r" || return 2; R=$_r; E=1; return 0; fi
  _a=$_c; _rest=
  while [ "$_a" != "$ROOT" ]; do
    _rest=/${D}{_a##*/}$_rest; _a=${D}{_a%/*}; [ -n "$_a" ] || _a=/
    if rp "$_a"; then
      inside "$_r" || return 2
      _f=${D}{_rest#/}; _f=${D}{_f%%/*}
      [ -L "${D}{_r%/}/$_f" ] && return 2
      R=${D}{_r%/}$_rest; E=0; return 0
    fi
  done
  return 3
}
need() { res "$1"; case $? in 0) return 0;; 2) echo outside;; *) echo noroot;; esac; exit 0; }
exists() { need "$1"; [ "$E" = 1 ] || { echo missing; exit 0; }; }
info() { stat -L -c '%f %s %i %Y %W %y|%w' -- "$1"; }
FRAMED='for f do s=$(wc -c < "$f" 2>/dev/null) || s=-; printf "%s\0%s\0" "$f" "$s"; [ "$s" = - ] || { cat -- "$f" 2>/dev/null; cat /dev/zero; } | head -c "$s"; done'
`;

/** $1 rel: `ok <info>` (links followed). */
export const STAT = String.raw`
exists "$1"
st=$(info "$R") || { echo denied; exit 0; }
echo "ok $st"
`;

/**
 * $1 rel, $2 largest size downloaded whole, $3 first line, $4 last line (1-based), $5 byte
 * cap of the window, $6 largest size printed with the answer: `inline <info>` + the real path,
 * a NUL and at most the size stat gave of the file's bytes (the caller keeps them only when they
 * are exactly that many, come through the place's text output unchanged, and are text); `ok
 * <info>` + the real path to download; or, for a larger file, `window <info>` +
 * `dir\0newlines\0last byte hex\0` where dir holds `head` (the first 8 KiB) and `window` (the
 * lines; the caller removes dir). `isdir`, `notfile`, `denied`.
 */
export const READ = String.raw`
exists "$1"
st=$(info "$R") || { echo denied; exit 0; }
case $st in 4*) echo isdir; exit 0;; 8*) ;; *) echo notfile; exit 0;; esac
[ -r "$R" ] || { echo denied; exit 0; }
size=${D}{st#* }; size=${D}{size%% *}
if [ "$size" -le "$6" ]; then echo "inline $st"; printf '%s\0' "$R"; head -c "$size" -- "$R"; exit 0; fi
if [ "$size" -le "$2" ]; then echo "ok $st"; printf '%s' "$R"; exit 0; fi
d=$(mktemp -d) || { echo failed; exit 0; }
head -c 8192 -- "$R" > "$d/head"
n=$(wc -l < "$R"); t=$(tail -c 1 -- "$R" | od -An -tx1 | tr -d ' \n')
if [ "$4" -ge "$3" ]; then sed -n "$3,$4p;$4q" -- "$R" | head -c "$5" > "$d/window"; else : > "$d/window"; fi
echo "window $st"; printf '%s\0%s\0%s\0' "$d" "$n" "$t"
`;

/**
 * $1 rel, for the target guard: `ok <info>` or `new` (nothing there yet) + the real path it
 * reaches, links followed (`outside`, `noroot`), as descriptor-ops.ts `resolve` answers.
 */
export const RESOLVE = String.raw`
need "$1"
if [ "$E" = 1 ]; then st=$(info "$R") || { echo denied; exit 0; }; echo "ok $st"; else echo new; fi
printf '%s' "$R"
`;

/** Each argument a rel: `status\0real path\0` (status ok, missing, isdir, notfile, denied, outside, noroot). */
export const RESOLVE_FILES = String.raw`
for a do
  res "$a"; c=$?
  if [ $c = 2 ]; then s=outside; elif [ $c != 0 ]; then s=noroot; elif [ "$E" != 1 ]; then s=missing
  elif [ -d "$R" ]; then s=isdir; elif [ ! -f "$R" ]; then s=notfile; elif [ ! -r "$R" ]; then s=denied; else s=ok; fi
  [ $s = ok ] || R=
  printf '%s\0%s\0' "$s" "$R"
done
`;

/**
 * Arguments in fours: rel, the temp file's name in the workdir (already uploaded), kind
 * (`text` for write(): when the old file has a BOM or only CRLF line breaks, nothing is
 * written and the answer is `conventions` + `x<first 3 bytes hex> <newlines> <line breaks
 * without a CR> x<last byte hex>`), the byte count uploaded. Per item `status\0payload\0`:
 * `ok`, `isdir`, `notfile`, `notdir` + the real path of the component that is a file,
 * `short`, `denied`, `outside`, `noroot`. Keeps the old file's mode, creates missing
 * parents inside the root and renames the temp over the target; the temp is always removed.
 */
export const COMMIT = String.raw`
one() {
  res "$1"; c=$?
  [ $c = 2 ] && { printf 'outside\0\0'; return; }
  [ $c = 0 ] || { printf 'noroot\0\0'; return; }
  [ -d "$R" ] && { printf 'isdir\0\0'; return; }
  mode=
  if [ "$E" = 1 ]; then
    st=$(info "$R") || { printf 'denied\0\0'; return; }
    case $st in 8*) ;; *) [ "$3" = text ] && { printf 'notfile\0\0'; return; };; esac
    mode=$(stat -L -c %a -- "$R")
    if [ "$3" = text ]; then
      [ -r "$R" ] || { printf 'denied\0\0'; return; }
      b=$(head -c 3 -- "$R" | od -An -tx1 | tr -d ' \n')
      lf=$(wc -l < "$R")
      bad=$(grep -c -v -a "$(printf '\r')\$" -- "$R")
      last=$(tail -c 1 -- "$R" | od -An -tx1 | tr -d ' \n')
      # grep -c -v also counts an unterminated last line, whose ending does not matter.
      case $last in ''|0a|0d) ;; *) bad=$((bad - 1));; esac
      if [ "$b" = efbbbf ] || { [ "$lf" -gt 0 ] && [ "$bad" -eq 0 ]; }; then
        printf 'conventions\0x%s %s %s x%s\0' "$b" "$lf" "$bad" "$last"; return
      fi
    fi
  fi
  d=${D}{R%/*}; [ -n "$d" ] || d=/
  p=; rest=${D}{d#/}
  while [ -n "$rest" ]; do
    n=${D}{rest%%/*}; case $rest in */*) rest=${D}{rest#*/};; *) rest=;; esac
    p=$p/$n
    [ -d "$p" ] && continue
    if [ -e "$p" ] || [ -L "$p" ]; then printf 'notdir\0%s\0' "$p"; return; fi
    mkdir -- "$p" || [ -d "$p" ] || { printf 'denied\0\0'; return; }
  done
  rp "$d" && inside "$_r" || { printf 'outside\0\0'; return; }
  [ -w "$d" ] || { printf 'denied\0\0'; return; }
  [ "$(wc -c < "$2")" -eq "$4" ] || { printf 'short\0\0'; return; }
  [ -z "$mode" ] || chmod "$mode" "$2"
  [ -d "$R" ] && { printf 'isdir\0\0'; return; }
  mv -f -T -- "$2" "$R" || { printf 'denied\0\0'; return; }
  printf 'ok\0\0'
}
while [ $# -ge 4 ]; do
  t=${D}{ROOT%/}/$2
  if [ -n "$ROOT" ]; then one "$1" "$t" "$3" "$4"; rm -f -- "$t"; else printf 'noroot\0\0'; fi
  shift 4
done
`;

/** $1 parent rel, $2 name: removes a file, a link or an empty folder: `ok`, `missing`, `notempty`, `denied`. */
export const DELETE = String.raw`
exists "$1"
t=${D}{R%/}/$2
if [ -d "$t" ] && [ ! -L "$t" ]; then
  rmdir -- "$t" && { echo ok; exit 0; }
  [ -n "$(ls -A -- "$t")" ] && echo notempty || echo denied
  exit 0
fi
[ -e "$t" ] || [ -L "$t" ] || { echo missing; exit 0; }
rm -f -- "$t" && echo ok || echo denied
`;

/**
 * $1 rel: a folder's entries as `type\0size\0mtime\0name\0` records (links followed when
 * they stay inside the root; script-search.ts listingEntries), or `file <info>` for a file.
 */
export const LS = String.raw`
exists "$1"
if [ ! -d "$R" ]; then st=$(info "$R") || { echo denied; exit 0; }; echo "file $st"; exit 0; fi
[ -r "$R" ] && [ -x "$R" ] || { echo denied; exit 0; }
echo ok
find "$R" -mindepth 1 -maxdepth 1 ! -type l -printf '%y\0%s\0%T@\0%f\0'
for l in "$R"/* "$R"/.[!.]* "$R"/..?*; do
  [ -L "$l" ] || continue
  if rp "$l" && inside "$_r"; then find "$_r" -maxdepth 0 -printf '%y\0%s\0%T@\0'
  else find "$l" -maxdepth 0 -printf '%y\0%s\0%T@\0'; fi
  printf '%s\0' "${D}{l##*/}"
done
`;

/**
 * $1 rel of the folder to search: `ok` + the tree as script-search.ts parseTree reads it
 * (the folder's real path, `A` records for the folders from the root to its parent, every
 * entry below it except inside `.git`, `E`, then each .gitignore below it), `file` + the
 * real path for a regular file, `special` for another kind of file.
 */
export const TREE = String.raw`
exists "$1"
if [ ! -d "$R" ]; then if [ -f "$R" ]; then printf 'file\n%s' "$R"; else echo special; fi; exit 0; fi
printf 'ok\n%s\0' "$R"
if [ "$R" != "$ROOT" ]; then
  a=$ROOT; rest=${D}{R#"${D}{ROOT%/}"/}
  while :; do
    if [ -e "$a/.git" ]; then g=1; else g=0; fi
    printf 'A\0%s\0%s\0' "$a" "$g"
    if [ -f "$a/.gitignore" ]; then sh -c "$FRAMED" sh "${D}{a%/}/.gitignore"; else printf '%s\0%s\0' - -; fi
    case $rest in */*) a=${D}{a%/}/${D}{rest%%/*}; rest=${D}{rest#*/};; *) break;; esac
  done
fi
find "$R" -mindepth 1 -printf '%y\0%s\0%T@\0%P\0' -name .git -prune
printf 'E\0'
find "$R" -name .git -prune -o -name .gitignore ! -type d -exec sh -c "$FRAMED" sh {} +
`;

/**
 * $1 the pattern, $2 most lines per file, $3 largest file searched, then the real paths.
 * For each file that holds the pattern, is no larger and has no NUL in its first 8 KiB
 * (binary): `path\0` + grep's `LINE:text` lines + `\0` (a NUL inside a line is dropped).
 */
export const GREP = String.raw`
pat=$1; hits=$2; max=$3; shift 3
o=$(mktemp) || { echo failed; exit 0; }
trap 'rm -f -- "$o"' EXIT
echo ok
[ $# -gt 0 ] || exit 0
grep -l -F -a --null -e "$pat" -- "$@" | xargs -0 -r sh -c '
  pat=$1; hits=$2; max=$3; o=$4; shift 4
  for f do
    [ "$(stat -L -c %s -- "$f")" -le "$max" ] || continue
    head -c 8192 -- "$f" > "$o" || continue
    [ "$(tr -d "\000" < "$o" | wc -c)" -eq "$(wc -c < "$o")" ] || continue
    grep -n -a -F -m "$hits" -e "$pat" -- "$f" > "$o"
    printf "%s\0" "$f"; tr -d "\000" < "$o"; printf "\0"
  done' sh "$pat" "$hits" "$max" "$o"
`;

/** Removes the read's window folder. */
export const REMOVE_DIR = String.raw`
rm -rf -- "$1"
echo ok
`;
