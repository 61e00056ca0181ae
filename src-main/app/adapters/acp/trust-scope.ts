// `deepdesk acp --trust` (SPEC §9, §14): which session folders the flag trusts. An editor
// opens whatever folders it likes; the person who passed `--trust` meant one: the folder they
// named with --folder, else the folder of the first session. Nothing is recorded.

import { realPathOf } from '../../../core/fs/real-path';

/** For each session's folder, whether `--trust` applies to it. */
export function acpTrustScope(trust: boolean, given: string | undefined): (sessionFolder: string) => boolean {
  if (!trust) return () => false;
  let chosen = given !== undefined ? realPathOf(given) : undefined;
  return (sessionFolder) => {
    const real = realPathOf(sessionFolder);
    chosen ??= real;
    return real === chosen;
  };
}
