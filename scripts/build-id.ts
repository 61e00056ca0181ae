// This build's identity, taken when the main bundle is written (SPEC §16's host and its clients
// compare it): a digest of its chunks' names and code, kept beside them as out/main/build-id.
// Content only, so rebuilding the same source (npm's `prepare` on a `file:` install) is the same
// build; every command reads one small file instead of going over the bundle.
import { createHash } from 'node:crypto';
import type { Plugin } from 'vite';
import { BUILD_ID_FILE } from '../src-main/app/base/package-version';

export function bundleIdentity(chunks: ReadonlyArray<{ fileName: string; code: string }>): string {
  const hash = createHash('sha256');
  for (const chunk of [...chunks].sort((a, b) => (a.fileName < b.fileName ? -1 : a.fileName > b.fileName ? 1 : 0))) {
    hash.update(`${chunk.fileName}\0`);
    hash.update(chunk.code);
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

export function buildIdPlugin(): Plugin {
  return {
    name: 'deepdesk-build-id',
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).flatMap((item) => (item.type === 'chunk' ? [{ fileName: item.fileName, code: item.code }] : []));
      this.emitFile({ type: 'asset', fileName: BUILD_ID_FILE, source: `${bundleIdentity(chunks)}\n` });
    },
  };
}
