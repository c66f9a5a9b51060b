/**
 * A tenant's writer calling MCP tools through the dispatcher in process (no transport), over a
 * test runtime: what the recall and query tool tests each set up.
 */
import type { Principal } from '../../src/core/principal.js';
import { createMcpFeatures } from '../../src/mcp/features/mcp-features.js';
import { serializeReply } from '../../src/mcp/protocol/json-rpc.js';
import { McpDispatcher } from '../../src/mcp/server/mcp-dispatcher.js';
import { statelessRequest, type Json } from '../support/mcp/stateless-client.js';
import { createTestRuntime, type TestRuntime } from '../support/test-runtime.js';

export interface ToolResult {
  readonly isError: boolean;
  readonly structured: Json;
  /** The first content block's text. */
  readonly text: string;
}

export interface ToolCaller {
  readonly runtime: TestRuntime;
  readonly principal: Principal;
  call(name: string, args: Json): Promise<ToolResult>;
  close(): Promise<void>;
}

export async function openToolCaller(tenant: string): Promise<ToolCaller> {
  const runtime = await createTestRuntime();
  const principal = await runtime.principal({ tenant, agent: 'agent', roles: ['writer'] });
  const dispatcher = new McpDispatcher({ features: createMcpFeatures({ facade: runtime.facade }), serverVersion: 'test' });
  return {
    runtime,
    principal,
    async call(name, args): Promise<ToolResult> {
      const outcome = await dispatcher.handleValue(statelessRequest(1, 'tools/call', { name, arguments: args }), { principal, protocolVersion: '2025-06-18' });
      if (outcome.kind !== 'answered') throw new Error(`${name} was not answered`);
      const result = (JSON.parse(serializeReply(outcome.reply)) as Json).result as Json;
      const [first] = (result.content ?? []) as { text?: string }[];
      return { isError: result.isError === true, structured: (result.structuredContent ?? {}) as Json, text: first?.text ?? '' };
    },
    close: () => runtime.close(),
  };
}
