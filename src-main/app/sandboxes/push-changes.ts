// What changed in a sandbox thread's worktree since the sandbox last matched it (the person's
// edits, a restored checkpoint, Ask the agent to resolve) goes up before the thread goes on, so
// the agent works on what the person sees.

import { shQuote } from '../../core/text/shell-quote';
import type { ProviderSandbox } from '../../core/sandbox-providers/provider';
import { planUpload, uploadFolder, type Manifest, type UploadLimits, type UploadPlan } from './folder-upload';
import { posixCksum } from './posix-cksum';
import fs from 'node:fs';
import path from 'node:path';

export async function pushFolderChanges(
  sandbox: ProviderSandbox,
  folder: string,
  manifest: Manifest,
  options: { dataDir: string; env: NodeJS.ProcessEnv; limits: UploadLimits; signal?: AbortSignal },
): Promise<{ manifest: Manifest; sent: number; removed: number }> {
  const plan = await planUpload(folder, options);
  const differs: UploadPlan['files'] = [];
  for (const f of plan.files) {
    const known = manifest[f.rel];
    if ('link' in f) {
      if (!known || !('link' in known) || known.link !== f.link) differs.push(f);
      continue;
    }
    if (!known || !('crc' in known) || known.size !== f.size || known.exec !== f.exec) {
      differs.push(f);
      continue;
    }
    let content: Buffer;
    try {
      content = fs.readFileSync(path.join(folder, f.rel));
    } catch {
      continue;
    }
    if (posixCksum(content) !== known.crc) differs.push(f);
  }
  const listed = new Set(plan.files.map((f) => f.rel));
  const leftOut = new Set(plan.leftOut.map((l) => l.rel));
  // Gone from the worktree (not merely left out of the upload): gone from the sandbox too.
  const gone = Object.keys(manifest).filter((rel) => !listed.has(rel) && !leftOut.has(rel) && !('other' in manifest[rel]!));
  const next: Manifest = { ...manifest };
  if (differs.length > 0) Object.assign(next, await uploadFolder(sandbox, folder, { ...plan, files: differs }, options.signal ? { signal: options.signal } : {}));
  for (let i = 0; i < gone.length; i += 200) {
    const chunk = gone.slice(i, i + 200);
    const r = await sandbox.execute(`rm -f -- ${chunk.map((rel) => shQuote(`./${rel}`)).join(' ')}`, { cwd: sandbox.workdir, timeoutMs: 120_000, ...(options.signal ? { signal: options.signal } : {}) });
    if (r.exitCode === 0) for (const rel of chunk) delete next[rel];
  }
  return { manifest: next, sent: differs.length, removed: gone.length };
}
