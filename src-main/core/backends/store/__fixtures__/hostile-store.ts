// Hostile names and contents for the parity tests of the indexed stores (SQLite, PostgreSQL)
// against a full scan: the same pseudo-random files every run.

import type { FileUpload } from '../../protocol';

export const HOSTILE_NAMES = [
  'a0', 'a-b', 'a.b/x.md', 'a/b.md', 'a/b/c.md', 'a/.hidden.md', 'a*b.md', '[abc].md', 'b.md', '{x,y}.md', '100%.md', 'snake_name.md',
  '.git/config', 'sub/.git/HEAD', 'sub/.git/x.md', '.dot/in.md', 'dir/sub/deep.md', 'dir/sub/deeper/x.txt', 'dir/top.md', 'dir/top.txt',
  'dir0/x.md', 'dir-x/y.md', 'é/ü.md', 'É/x.md', 'emoji 😀.md', 'sp ace/n a m e.md', "q'uote\".md", 'near/NEAR(a b).md',
];

export const HOSTILE_LINES = [
  'needle in a haystack', 'NEEDLE upper', 'Needle title', 'she said "stop"', 'grew 50% in May', 'snake_case_name', 'cats AND dogs',
  'NEAR(a b) here', 'a*b and a**b', 'café CAFÉ', 'smile 😀 ok', "it's O'Brien's", 'ab', 'x', '', 'windows line\r',
];

/** The files: each name with 1–6 of the lines (LF or CRLF), plus a binary file and a text holding NUL. */
export function hostileFiles(): FileUpload[] {
  let seed = 7;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const files = HOSTILE_NAMES.map((name) => {
    const lines = Array.from({ length: 1 + next(6) }, () => HOSTILE_LINES[next(HOSTILE_LINES.length)]!);
    return { path: '/' + name, content: new TextEncoder().encode(lines.join(next(2) === 0 ? '\n' : '\r\n')) };
  });
  files.push({ path: '/binary.bin', content: new Uint8Array([0, 110, 101, 101, 100, 108, 101]) });
  files.push({ path: '/nul.md', content: new TextEncoder().encode('needle\0needle') });
  return files;
}
