import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { basename, dirname, join } from 'node:path';

/** Deepdesk's version, from the package.json above the running bundle. */
export function packageVersion(): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '0.0.0';
  }
  return '0.0.0';
}

let cachedBuildId: string | undefined;

/**
 * This build of Deepdesk: its version and a digest of the main-process bundle running this. The
 * agent host and its clients compare it, so that a host left from before an update is replaced
 * once it is idle. The digest is of the bundle's content, not of when it was written: rebuilding
 * the same source (npm's `prepare` on a `file:` install does) gives the same build.
 */
export function buildId(): string {
  cachedBuildId ??= computeBuildId();
  return cachedBuildId;
}

function computeBuildId(): string {
  const version = packageVersion();
  let digest = '';
  try {
    digest = bundleDigest(fileURLToPath(import.meta.url));
  } catch {
    // Not from a file (a test's transform): the version alone.
  }
  return digest === '' ? version : `${version}+${digest}`;
}

/** The bundle's .js files (out/main and its chunks/), by relative path in a stable order; [] when `file` is not one of them. */
function bundleFiles(file: string): { root: string; files: string[] } {
  let root = dirname(file);
  if (basename(root) === 'chunks') root = dirname(root);
  const files: string[] = [];
  const walk = (dir: string, prefix: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (entry.isDirectory() && prefix === '' && entry.name === 'chunks') walk(join(dir, entry.name), `${entry.name}/`);
      else if (entry.isFile() && /\.(c|m)?js$/.test(entry.name)) files.push(`${prefix}${entry.name}`);
    }
  };
  walk(root, '');
  if (!files.includes(basename(file)) && !files.includes(`chunks/${basename(file)}`)) return { root, files: [] };
  return { root, files };
}

/** Where a bundle keeps its digest with the files' identities it was taken of (out/main/.bundle-digest). */
const DIGEST_FILE = '.bundle-digest';

/**
 * sha256 over the bundle's .js files (out/main and its chunks/), by relative path and content.
 * Hashing the whole bundle costs every command 5–50 ms, so the digest is kept beside it with
 * each file's size, change time and inode: while every file is still the one hashed, that digest
 * is the answer; any file added, removed or rewritten, and it is taken again (and kept, where
 * the bundle's folder is writable).
 */
export function bundleDigest(file: string): string {
  const { root, files } = bundleFiles(file);
  if (files.length === 0) return '';
  const identity = files.map((name) => {
    const st = statSync(join(root, name), { bigint: true });
    return `${name}\0${st.size}\0${st.ctimeNs}\0${st.mtimeNs}\0${st.ino}`;
  }).join('\n');
  const keptAt = join(root, DIGEST_FILE);
  try {
    const [digest, ...kept] = readFileSync(keptAt, 'utf8').split('\n');
    if (digest !== undefined && /^[0-9a-f]{16}$/.test(digest) && kept.join('\n') === identity) return digest;
  } catch {
    // Not kept yet.
  }
  // node:crypto (some 20 modules) is loaded only when the bundle is hashed, not by every command.
  const hash = process.getBuiltinModule('node:crypto').createHash('sha256');
  for (const name of files) {
    hash.update(`${name}\0`);
    hash.update(readFileSync(join(root, name)));
    hash.update('\0');
  }
  const digest = hash.digest('hex').slice(0, 16);
  try {
    const temp = `${keptAt}.${process.pid}`;
    writeFileSync(temp, `${digest}\n${identity}`);
    renameSync(temp, keptAt);
  } catch {
    // A bundle installed read-only: hashed on each start, as before.
  }
  return digest;
}
