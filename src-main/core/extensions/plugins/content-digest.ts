// What a person confirms of a plugin is its content (SPEC §15): every file of the installed
// copy, by path and bytes. A plugin whose files no longer give the confirmed digest (an update,
// anyone editing the copy) does not load until it is confirmed again. Bounded: a plugin of
// more files or bytes than this is refused. Digests are kept by the files' stats, so checking
// at every load costs a walk and a stat per file.

import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative } from 'node:path';

const MAX_FILES = 5000;
const MAX_BYTES = 64 * 1024 * 1024;

const cache = new Map<string, { stamp: string; digest: string }>();

export function pluginDigest(root: string): { digest: string } | { problem: string } {
  const files: { rel: string; path: string; stamp: string; link?: string }[] = [];
  let bytes = 0;
  const walk = (dir: string): string | undefined => {
    for (const name of readdirSync(dir).sort()) {
      if (name === '.git') continue;
      const path = join(dir, name);
      const st = lstatSync(path, { bigint: true });
      if (st.isDirectory()) {
        const problem = walk(path);
        if (problem) return problem;
        continue;
      }
      if (files.length >= MAX_FILES) return `${root}: holds more than ${MAX_FILES} files`;
      bytes += Number(st.size);
      if (bytes > MAX_BYTES) return `${root}: is larger than ${MAX_BYTES / 1024 / 1024} MB`;
      const stamp = `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
      files.push({ rel: relative(root, path), path, stamp, ...(st.isSymbolicLink() ? { link: readlinkSync(path) } : {}) });
    }
    return undefined;
  };
  try {
    const problem = walk(root);
    if (problem) return { problem };
  } catch (err) {
    return { problem: `${root}: could not be read (${(err as NodeJS.ErrnoException).code ?? String(err)})` };
  }
  const stamp = files.map((f) => `${f.rel}\0${f.stamp}`).join('\n');
  const hit = cache.get(root);
  if (hit && hit.stamp === stamp) return { digest: hit.digest };
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${file.rel}\0`);
    hash.update(file.link !== undefined ? `link:${file.link}` : readFileSync(file.path));
    hash.update('\0');
  }
  const digest = hash.digest('hex');
  cache.set(root, { stamp, digest });
  return { digest };
}
