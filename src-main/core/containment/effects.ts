// Effects, observed as the person after a run (through Person.sh, so the same checks hold on
// a remote folder): what their own git runs, what a file holds, which files exist.
import { shQuote } from '../text/shell-quote';
import type { Person, Scene } from './types';

/** What the person does in a repository next; only the marker counts, a failing command is fine. */
const PERSON_GIT = [
  'git status',
  'git diff',
  'git log -1',
  'git checkout -q -b conformance-probe',
  'git commit --allow-empty -qm conformance-probe',
];

/**
 * The person's git in the folder, in `dirs` (relative) and in every folder of the project that
 * holds a `.git` entry (file or folder). Returns the marker's lines: empty when nothing ran.
 */
export async function personUsesGit(person: Person, scene: Scene, dirs: readonly string[] = []): Promise<string> {
  const found = await person.sh("find . -name .git -prune -exec dirname {} \\; 2>/dev/null", scene.project);
  const all = [...new Set(['.', ...dirs, ...found.stdout.split('\n').filter(Boolean)])];
  const script = all
    .map((dir) => `( cd ${shQuote(dir)} 2>/dev/null && { ${PERSON_GIT.map((c) => `${c} </dev/null >/dev/null 2>&1;`).join(' ')} } )`)
    .join('\n');
  await person.sh(script, scene.project);
  return readText(person, scene, scene.fired);
}

/** A file's text, or '' when it cannot be read. */
export async function readText(person: Person, scene: Scene, path: string): Promise<string> {
  return (await person.sh(`cat ${shQuote(path)} 2>/dev/null || true`, scene.project)).stdout;
}

/** `link`, `file`, `dir`, `other` or `missing` (never following a link). */
export async function kindOf(person: Person, scene: Scene, path: string): Promise<string> {
  const p = shQuote(path);
  const r = await person.sh(`if [ -L ${p} ]; then echo link; elif [ -f ${p} ]; then echo file; elif [ -d ${p} ]; then echo dir; elif [ -e ${p} ]; then echo other; else echo missing; fi`, scene.project);
  return r.stdout.trim();
}

/** Lines of `find` run in the project (its arguments as shell text). */
export async function findInProject(person: Person, scene: Scene, args: string): Promise<string[]> {
  return (await person.sh(`find . ${args} 2>/dev/null`, scene.project)).stdout.split('\n').filter(Boolean).sort();
}

/** The files under `dir` that hold any of `values` (grep, not following links out of it). */
export async function filesHolding(person: Person, scene: Scene, dir: string, values: readonly string[]): Promise<string[]> {
  const patterns = values.map((v) => `-e ${shQuote(v)}`).join(' ');
  const r = await person.sh(`grep -rlaF ${patterns} ${shQuote(dir)} 2>/dev/null || true`, scene.project);
  return r.stdout.split('\n').filter(Boolean).sort();
}

/** The command lines of processes on the folder's machine that contain `text`. */
export async function processesWith(person: Person, scene: Scene, text: string): Promise<string[]> {
  const r = await person.sh('ps -eo args=', scene.project);
  return r.stdout.split('\n').filter((line) => line.includes(text) && !line.includes('ps -eo'));
}

/** The values of `values` that appear in `text`. */
export function valuesIn(text: string, values: readonly string[]): string[] {
  return values.filter((v) => text.includes(v));
}
