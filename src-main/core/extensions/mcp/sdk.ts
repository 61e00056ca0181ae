// The MCP SDK's runtime, loaded the first time a server starts: its modules (the zod schemas
// of every message) cost ~120 ms at start-up, which a folder without MCP servers (and every
// `deepdesk run` on one) should not pay. Types are imported statically as usual.
import type * as AuthModule from '@modelcontextprotocol/sdk/client/auth.js';
import type * as ClientModule from '@modelcontextprotocol/sdk/client/index.js';
import type * as SseModule from '@modelcontextprotocol/sdk/client/sse.js';
import type * as HttpModule from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type * as StdioModule from '@modelcontextprotocol/sdk/shared/stdio.js';
import type * as TypesModule from '@modelcontextprotocol/sdk/types.js';

export interface McpSdk {
  auth: typeof AuthModule.auth;
  UnauthorizedError: typeof AuthModule.UnauthorizedError;
  Client: typeof ClientModule.Client;
  SSEClientTransport: typeof SseModule.SSEClientTransport;
  StreamableHTTPClientTransport: typeof HttpModule.StreamableHTTPClientTransport;
  JSONRPCMessageSchema: typeof TypesModule.JSONRPCMessageSchema;
  serializeMessage: typeof StdioModule.serializeMessage;
  ToolListChangedNotificationSchema: typeof TypesModule.ToolListChangedNotificationSchema;
  ResourceListChangedNotificationSchema: typeof TypesModule.ResourceListChangedNotificationSchema;
  PromptListChangedNotificationSchema: typeof TypesModule.PromptListChangedNotificationSchema;
}

let loading: Promise<McpSdk> | undefined;
/** Set once loaded (what has not been loaded cannot have thrown its errors). */
export let loadedSdk: McpSdk | undefined;

export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= (async () => {
    const [auth, client, sse, http, stdio, types] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/auth.js'),
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/sse.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
      import('@modelcontextprotocol/sdk/shared/stdio.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    loadedSdk = {
      auth: auth.auth,
      UnauthorizedError: auth.UnauthorizedError,
      Client: client.Client,
      SSEClientTransport: sse.SSEClientTransport,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      JSONRPCMessageSchema: types.JSONRPCMessageSchema,
      serializeMessage: stdio.serializeMessage,
      ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
      ResourceListChangedNotificationSchema: types.ResourceListChangedNotificationSchema,
      PromptListChangedNotificationSchema: types.PromptListChangedNotificationSchema,
    };
    return loadedSdk;
  })();
  return loading;
}
