// A /tmp of its own for a long-lived process (SandboxPolicy.privateTmp: another agent's tree,
// whose tools make sockets in /tmp whatever TMPDIR says). overlay-exec mounts, in its user and
// mount namespace, an overlay whose lower layer is the host's /tmp and whose upper layer lives in
// a tmpfs of the run's (`--tmpfs`); bubblewrap binds that view at /tmp. The host's entries read
// as they are now, what the process writes or makes there is its alone and gone with it, and a
// host service's socket there cannot be connected to (a socket is reached by its own inode, not
// the overlay's). One mount however many entries /tmp holds: bound one by one, each costs
// bubblewrap a read of the mount table, ~0.85 s for 770 entries.
import { makeRunFolder } from './run-folders';
import { realPathOf } from '../fs/real-path';
import { runToEnd } from '../process/spawn';
import { readFileSync, rmSync } from 'node:fs';
import { PLAIN_OPTION_PATH, type LayerTools } from './write-layer';

export interface TmpOverlay {
  /** The run's folder: the tmpfs is mounted over it in the namespace, so it stays empty here. */
  readonly dir: string;
  /** Where the merged /tmp is, inside the namespace: bubblewrap binds it at /tmp. */
  readonly view: string;
  wrap(file: string, args: string[]): { file: string; args: string[] };
}

export function createTmpOverlay(tools: LayerTools): TmpOverlay | undefined {
  const dir = realPathOf(makeRunFolder('deepdesk-tmp-'));
  if (!PLAIN_OPTION_PATH.test(dir)) {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  const view = `${dir}/view`;
  return {
    dir,
    view,
    wrap: (file, args) => ({ file: tools.overlayExec, args: ['--tmpfs', dir, '', '', 'rw', `lowerdir=/tmp,upperdir=${dir}/upper,workdir=${dir}/work,userxattr`, view, file, ...args] }),
  };
}

/**
 * Whether something is mounted below /tmp (a small disk, an AppImage's FUSE mount): the kernel
 * then refuses /tmp as an overlay's lower layer in a user namespace (the mounts below it are
 * locked there), so the host's entries are bound one by one instead.
 */
export function mountsBelowTmp(mountinfo = (): string => readFileSync('/proc/self/mountinfo', 'utf8')): boolean {
  try {
    return mountinfo()
      .split('\n')
      .some((line) => line.split(' ')[4]?.startsWith('/tmp/') === true);
  } catch {
    return true;
  }
}

let probed: Promise<boolean> | undefined;

/** Whether an overlay of /tmp with its upper layer in a tmpfs mounts and takes a new name here; asked once. */
export function tmpOverlayWorks(tools: LayerTools): Promise<boolean> {
  probed ??= (async () => {
    const overlay = createTmpOverlay(tools);
    if (!overlay) return false;
    try {
      const { file, args } = overlay.wrap('/bin/sh', ['-c', ': > "$1/.deepdesk-probe"', 'sh', overlay.view]);
      const ran = await runToEnd({ role: 'probe', file, args, timeoutMs: 20_000 });
      return ran.code === 0 && ran.spawnError === undefined;
    } finally {
      rmSync(overlay.dir, { recursive: true, force: true });
    }
  })();
  return probed;
}
