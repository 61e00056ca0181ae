// The folder's MCP servers and its trust question, kept current by `mcp.changed` and `trust.changed`.

import { useCallback, useEffect, useState } from 'react';
import type { McpListDto, TrustStateDto } from '../../../src-main/app/contract';
import { useApi } from './use-api';
import { useConnection, useEvent } from './transport-context';

export function useMcpServers(): { list: McpListDto | null; refresh(): void; set(list: McpListDto): void } {
  const api = useApi();
  const { reconnects } = useConnection();
  const [list, setList] = useState<McpListDto | null>(null);
  const refresh = useCallback(() => {
    void api.safe('mcp.list', {}).then((l) => l && setList(l));
  }, [api]);
  useEffect(refresh, [refresh, reconnects]);
  useEvent('mcp.changed', refresh);
  return { list, refresh, set: setList };
}

export function useFolderTrust(): { state: TrustStateDto | null; set(state: TrustStateDto): void } {
  const api = useApi();
  const { reconnects } = useConnection();
  const [state, setState] = useState<TrustStateDto | null>(null);
  useEffect(() => {
    let cancelled = false;
    void api.safe('trust.get', {}).then((s) => {
      if (!cancelled && s) setState(s);
    });
    return () => {
      cancelled = true;
    };
  }, [api, reconnects]);
  useEvent('trust.changed', setState);
  return { state, set: setState };
}
