/**
 * One tools/call, the same in every revision: the tool looked up, its arguments parsed by its zod
 * schema, the facade called, the result built as a value. Revisions differ only in how the
 * outcome is wrapped (server/handshake-methods.ts, server/stateless-methods.ts).
 */
import type { Principal } from '../../../core/principal.js';
import type { MemoryFacade } from '../../../service/memory-facade.js';
import type { JsonRpcParams, JsonRpcResult } from '../../protocol/json-rpc.js';
import { PreparedJson, RPC_INVALID_PARAMS, isPlainObject } from '../../protocol/json-rpc.js';
import type { ProtocolVersion } from '../../protocol/protocol-version.js';
import { reportsSchemaErrorsAsToolResults } from '../../protocol/protocol-version.js';
import { clipName, invalidArgumentsError, invalidArgumentsResult, methodFailure, toFieldIssues } from '../../protocol/rpc-errors.js';
import type { McpToolFeature, ToolCallOutcome } from '../../server/mcp-features.js';
import { resourceLinkBlocks } from '../resources/resource-wire.js';
import { HYPHAE_ROSTER } from './tool-registry.js';
import type { ToolRoster } from './tool-registry.js';

/** Where tool calls are counted and timed (the process metrics); outcome `invalid` = schema failure. */
export interface McpCallObserver {
  observeMcpCall(tool: string, outcome: 'ok' | 'error' | 'invalid', seconds: number): void;
}

function invalidParams(message: string): ToolCallOutcome {
  return { kind: 'error', error: { code: RPC_INVALID_PARAMS, message } };
}

export class ToolCaller implements McpToolFeature {
  readonly listResult: JsonRpcResult;

  constructor(
    private readonly facade: MemoryFacade,
    private readonly log: (message: string) => void,
    private readonly observer: McpCallObserver | undefined,
    private readonly roster: ToolRoster = HYPHAE_ROSTER,
  ) {
    this.listResult = roster.listResult;
  }

  async call(params: JsonRpcParams, principal: Principal, contentVersion: ProtocolVersion): Promise<ToolCallOutcome> {
    const name = params.name;
    if (typeof name !== 'string') return invalidParams('Invalid params: name must be the name of a tool');
    const tool = this.roster.find(name);
    if (tool === undefined) return invalidParams(`Unknown tool: ${clipName(name)}`);
    const args = params.arguments === undefined ? {} : params.arguments;
    if (!isPlainObject(args)) return invalidParams('Invalid params: arguments must be an object');

    const started = performance.now();
    const observe = (outcome: 'ok' | 'error' | 'invalid'): void =>
      this.observer?.observeMcpCall(tool.name, outcome, (performance.now() - started) / 1000);
    const parsed = tool.input.safeParse(args);
    if (!parsed.success) {
      observe('invalid');
      const issues = toFieldIssues(parsed.error.issues);
      return reportsSchemaErrorsAsToolResults(contentVersion)
        ? { kind: 'result', result: invalidArgumentsResult(tool.name, issues) }
        : { kind: 'error', error: invalidArgumentsError(tool.name, issues) };
    }

    let outcome: Awaited<ReturnType<typeof tool.run>>;
    try {
      outcome = await tool.run(this.facade, principal, parsed.data);
    } catch (error) {
      observe('error');
      return { kind: 'error', error: methodFailure(error, this.log, `tool ${tool.name}`) };
    }
    observe('ok');
    // The text block stays first; links follow for the revisions that have resource_link. Its text is structuredContent's JSON: made once, written twice.
    const structured = JSON.stringify(outcome.structured);
    const content: unknown[] = [{ type: 'text', text: outcome.text ?? structured }];
    for (const block of resourceLinkBlocks(outcome.links, contentVersion)) content.push(block);
    return { kind: 'result', result: { content, structuredContent: new PreparedJson(structured), isError: false } };
  }
}
