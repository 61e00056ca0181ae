// A tool card whose page cut its output or arguments (see thread-page.ts) loads the call in
// full the first time it is opened; until then, and if that fails, it shows what it has.

import { useEffect, useState } from 'react';
import type { ToolItem } from '../lib/thread-reducer';
import { useConversation } from './conversation-context';
import { whileCurrent } from '../lib/while-current';

export interface FullToolCall {
  item: ToolItem;
  /** 'loading' while the full call is fetched, the error if that failed; null otherwise. */
  status: 'loading' | { error: string } | null;
}

export function useFullToolCall(given: ToolItem, open: boolean): FullToolCall {
  const { fullToolCall } = useConversation();
  const [full, setFull] = useState<Pick<ToolItem, 'args' | 'originalArgs' | 'output'> | null>(null);
  const [status, setStatus] = useState<FullToolCall['status']>(null);
  const omitted = given.omitted;
  const wanted = open && omitted !== undefined && full === null && fullToolCall !== undefined;
  useEffect(() => {
    if (!wanted) return undefined;
    setStatus('loading');
    return whileCurrent(
      fullToolCall(omitted.index, given.id, given.parent),
      (call) => {
        setFull({ args: call.args, ...(call.originalArgs !== undefined ? { originalArgs: call.originalArgs } : {}), ...(call.output !== undefined ? { output: call.output } : {}) });
        setStatus(null);
      },
      (err) => setStatus({ error: err instanceof Error ? err.message : String(err) }),
    );
  }, [wanted, fullToolCall, omitted, given.id, given.parent]);
  if (full === null) return { item: given, status };
  const { omitted: _cut, ...rest } = given;
  return { item: { ...rest, ...full }, status };
}
