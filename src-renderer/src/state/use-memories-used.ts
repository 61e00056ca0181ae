// Which memories each turn of the open thread carried (SPEC §25 "Used in"), asked of the app
// when the thread opens and again when a run ends (its model calls recorded them).

import { useEffect, useState } from 'react';
import type { Result } from '../../../src-main/app/contract';
import { whileCurrent } from '../lib/while-current';
import { useApi } from './use-api';
import { useConnection } from './transport-context';

export type MemoryUse = Result<'memories.used'>['turns'][number]['memories'][number];

/** By turn (from 1): the memories (path, version) its requests held; turns without any are absent. */
export type MemoriesUsedByTurn = ReadonlyMap<number, readonly MemoryUse[]>;

const NONE: MemoriesUsedByTurn = new Map();

export function useMemoriesUsed(threadId: string | null, running: boolean): MemoriesUsedByTurn {
  const api = useApi();
  const { reconnects } = useConnection();
  const [used, setUsed] = useState<{ threadId: string; turns: MemoriesUsedByTurn } | null>(null);
  useEffect(() => {
    // While it runs the list grows; it is asked for once the run has ended.
    if (threadId === null || running) return undefined;
    return whileCurrent(
      api.call('memories.used', { threadId }),
      (result) => setUsed({ threadId, turns: new Map(result.turns.filter((t) => t.memories.length > 0).map((t) => [t.turn, t.memories])) }),
    );
  }, [api, threadId, running, reconnects]);
  return used !== null && used.threadId === threadId ? used.turns : NONE;
}
