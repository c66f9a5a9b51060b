/** The MCP surface: what the HTTP app and the CLI use. */
export { registerMcpRoutes, mcpMethodNotAllowed, mcpPrincipalOf, MCP_PATH, API_KEY_HEADER } from './http-routes.js';
export type { McpRouteDeps } from './http-routes.js';
export { runStdioServer, resolveStdioPrincipal, MAX_STDIO_MESSAGE_CHARS } from './stdio-server.js';
export type { StdioServerOptions } from './stdio-server.js';
export { runRemoteBridge } from './remote-bridge.js';
export type { RemoteBridgeOptions } from './remote-bridge.js';
export { McpDispatcher } from './mcp-dispatcher.js';
export type { McpDispatcherOptions, McpLog, McpOutcome, McpSession } from './mcp-dispatcher.js';
export { SUPPORTED_PROTOCOL_VERSIONS, LATEST_PROTOCOL_VERSION, negotiateProtocolVersion } from './protocol-version.js';
export type { ProtocolVersion } from './protocol-version.js';
export { MCP_TOOLS, TOOL_DESCRIPTORS } from './tools/tool-registry.js';
