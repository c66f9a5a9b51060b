/**
 * The opt-in A2A surface, driven by the A2A SDK's own client against a real server on a loopback
 * port: the agent card, remember → recall, a subscribe task streaming another agent's diff until
 * cancelled, authentication, tenancy, bad input, and that it stays out of OpenAPI and MCP.
 */
import { AgentCard, TaskState, type Message, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport, isLegacyAgentCard, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Diff, MemoryNode, RecallResult } from '../../src/core/entities.js';
import { waitFor } from '../support/wait-for.js';
import { a2aClient, data, dataOf, fetchWithKey, rpcCodeOf, sendRequest, startA2aServer, text, userMessage, type A2aTestServer } from '../support/a2a-server.js';

function textOf(message: Message): string {
  return message.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
}

async function rawRpc(baseUrl: string, key: string | undefined, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: { error?: { code: number; message: string; data?: { reason?: string }[] } } }> {
  const response = await fetch(`${baseUrl}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...(key === undefined ? {} : { 'x-hyphae-key': key }), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as never };
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

const INTEREST = 'flaky integration tests in the billing suite';

describe('A2A surface (HYPHAE_A2A=1)', () => {
  let server: A2aTestServer;
  let writerKey: string;
  let readerKey: string;
  let otherTenantKey: string;
  let writer: Client;

  beforeAll(async () => {
    server = await startA2aServer({ a2a: true });
    writerKey = (await server.mintKey('acme', 'writer')).key;
    const reader = await server.mintKey('acme', 'reader');
    readerKey = reader.key;
    otherTenantKey = (await server.mintKey('globex', 'writer')).key;
    await server.facade.placeBeacon(reader.principal, { text: INTEREST, threshold: 0.5, include_own: false });
    writer = await a2aClient(server.baseUrl, writerKey);
  });

  afterAll(async () => {
    await server?.close();
  });

  it('serves a valid agent card at the well-known path naming the skills, the endpoint and the API key scheme', async () => {
    const response = await fetch(`${server.baseUrl}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } });
    expect(response.status).toBe(200);
    const json = (await response.json()) as Record<string, unknown>;
    const card = AgentCard.fromJSON(json);
    expect(AgentCard.toJSON(card)).toEqual(json);
    expect(card.skills.map((s) => s.id)).toEqual(['remember', 'recall', 'subscribe']);
    expect(card.supportedInterfaces).toEqual([
      { url: `${server.baseUrl}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: `${server.baseUrl}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ]);
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.securitySchemes.hyphaeApiKey?.scheme).toEqual({
      $case: 'apiKeySecurityScheme',
      value: { description: expect.any(String), location: 'header', name: 'x-hyphae-key' },
    });
    expect(card.securitySchemes.hyphaeApiKeyBearer?.scheme).toEqual({
      $case: 'httpAuthSecurityScheme',
      value: { description: expect.any(String), scheme: 'Bearer', bearerFormat: 'Hyphae API key' },
    });
    expect(card.securityRequirements).toEqual([{ schemes: { hyphaeApiKey: { list: [] } } }, { schemes: { hyphaeApiKeyBearer: { list: [] } } }]);
    // The SDK client resolves the same card and speaks to the endpoint it names.
    const fetched = await writer.getAgentCard();
    expect(fetched.skills.map((s) => s.id)).toEqual(['remember', 'recall', 'subscribe']);
  });

  it('remembers through a data part and recalls it from plain text', async () => {
    const stored = (await writer.sendMessage(
      sendRequest(userMessage([data({ skill: 'remember', content: 'The billing webhook retries three times', cell_type: 'Decision', salience: 0.7 })])),
    )) as Message;
    const node = dataOf(stored) as MemoryNode;
    expect(node.content).toBe('The billing webhook retries three times');
    expect(node.cell_type).toBe('Decision');
    expect(node.source_agent).toBe('writer');
    expect(stored.metadata).toEqual({ skill: 'remember' });

    const recalled = (await writer.sendMessage(sendRequest(userMessage([text('The billing webhook retries three times')])))) as Message;
    const result = dataOf(recalled) as RecallResult;
    expect(result.results[0]?.node_id).toBe(node.node_id);
    expect(result.results[0]?.node?.content).toBe(node.content);
    expect(textOf(recalled)).toContain('The billing webhook retries three times');
    expect(recalled.metadata).toEqual({ skill: 'recall' });

    // metadata.skill selects too; text fills remember's content and cell_type defaults to Fact.
    const viaMetadata = (await writer.sendMessage(sendRequest(userMessage([text('Invoices close on the 3rd')], { skill: 'remember' })))) as Message;
    expect(dataOf(viaMetadata)).toMatchObject({ content: 'Invoices close on the 3rd', cell_type: 'Fact' });
  });

  it('streams a diff another agent stored to a subscribe task, and ends the stream when the task is cancelled', async () => {
    const reader = await a2aClient(server.baseUrl, readerKey);
    const stream = reader.sendMessageStream(sendRequest(userMessage([data({ skill: 'subscribe' })])));
    const first = await stream.next();
    const task = (first.value as StreamResponse).payload;
    expect(task?.$case).toBe('task');
    const opened = task?.$case === 'task' ? task.value : undefined;
    expect(opened?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const taskId = opened?.id ?? '';
    expect(server.facade.openLiveStreams).toBe(1);

    const stored = (await writer.sendMessage(sendRequest(userMessage([data({ skill: 'remember', content: INTEREST, cell_type: 'Risk', salience: 0.8 })])))) as Message;
    const nodeId = (dataOf(stored) as MemoryNode).node_id;

    const next = await stream.next();
    const update = (next.value as StreamResponse).payload;
    expect(update?.$case).toBe('artifactUpdate');
    const artifact = update?.$case === 'artifactUpdate' ? update.value : undefined;
    expect(artifact?.taskId).toBe(taskId);
    const diff = artifact?.artifact?.parts[0]?.content;
    expect(diff?.$case === 'data' ? (diff.value as Diff) : undefined).toMatchObject({ op: 'created', node_id: nodeId, source_agent: 'writer', seq: 1 });

    // The task is visible to its owner while it runs, with the latest diff as its artifact.
    const running = await reader.getTask({ tenant: '', id: taskId, historyLength: undefined });
    expect(running.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(running.artifacts.map((a) => a.metadata)).toEqual([{ seq: 1 }]);

    const cancelled = await reader.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const rest: StreamResponse[] = [];
    for await (const event of { [Symbol.asyncIterator]: () => stream }) rest.push(event);
    const last = rest.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' ? last.value.status?.state : undefined).toBe(TaskState.TASK_STATE_CANCELED);
    expect(server.facade.openLiveStreams).toBe(0);
    expect(((await reader.getTask({ tenant: '', id: taskId, historyLength: undefined })) as Task).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('resumes a subscription after a given inbox seq', async () => {
    const reader = await a2aClient(server.baseUrl, readerKey);
    const stream = reader.sendMessageStream(sendRequest(userMessage([data({ skill: 'subscribe', after_seq: 0 })])));
    const opened = (await stream.next()).value as StreamResponse;
    const taskId = opened.payload?.$case === 'task' ? opened.payload.value.id : '';
    const replayed = (await stream.next()).value as StreamResponse;
    expect(replayed.payload?.$case === 'artifactUpdate' ? replayed.payload.value.artifact?.metadata : undefined).toEqual({ seq: 1 });
    await reader.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    for await (const event of { [Symbol.asyncIterator]: () => stream }) void event;
  });

  it('ends a subscribe task whose stream the client drops, freeing its live-stream slot', async () => {
    const reader = await a2aClient(server.baseUrl, readerKey);
    const abort = new AbortController();
    const stream = reader.sendMessageStream(sendRequest(userMessage([data({ skill: 'subscribe' })])), { signal: abort.signal });
    const opened = (await stream.next()).value as StreamResponse;
    const taskId = opened.payload?.$case === 'task' ? opened.payload.value.id : '';
    expect(server.facade.openLiveStreams).toBe(1);
    expect(await server.metrics.registry.getSingleMetricAsString('hyphae_live_streams')).toMatch(/^hyphae_live_streams 1$/m);
    abort.abort();
    await waitFor(async () => (await reader.getTask({ tenant: '', id: taskId, historyLength: undefined })).status?.state === TaskState.TASK_STATE_CANCELED);
    await waitFor(() => server.facade.openLiveStreams === 0);
    expect(await server.metrics.registry.getSingleMetricAsString('hyphae_live_streams')).toMatch(/^hyphae_live_streams 0$/m);
  });

  it('refuses a call without a valid key before anything else', async () => {
    const anonymous = await a2aClient(server.baseUrl, undefined);
    const error = await caught(anonymous.sendMessage(sendRequest(userMessage([text('anything')]))));
    expect(rpcCodeOf(error)).toBe(-32040);
    const missing = await rawRpc(server.baseUrl, undefined, { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } });
    expect(missing.status).toBe(401);
    expect(missing.body.error?.data?.[0]?.reason).toBe('UNAUTHENTICATED');
    const wrong = await rawRpc(server.baseUrl, 'hy_not_a_key', { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } });
    expect(wrong.status).toBe(401);
  });

  it('keeps tasks per agent: another tenant’s or agent’s task id is not found, and params.tenant names no one else', async () => {
    const reader = await a2aClient(server.baseUrl, readerKey);
    const stream = reader.sendMessageStream(sendRequest(userMessage([data({ skill: 'subscribe' })])));
    const opened = (await stream.next()).value as StreamResponse;
    const taskId = opened.payload?.$case === 'task' ? opened.payload.value.id : '';
    expect(taskId).not.toBe('');

    for (const key of [otherTenantKey, writerKey]) {
      const stranger = await a2aClient(server.baseUrl, key);
      expect(rpcCodeOf(await caught(stranger.getTask({ tenant: '', id: taskId, historyLength: undefined })))).toBe(-32001);
      expect(rpcCodeOf(await caught(stranger.cancelTask({ tenant: '', id: taskId, metadata: undefined })))).toBe(-32001);
      const resubscribe = stranger.resubscribeTask({ tenant: '', id: taskId });
      expect(rpcCodeOf(await caught(resubscribe.next()))).toBe(-32001);
      const followUp = userMessage([text('hello')]);
      expect(rpcCodeOf(await caught(stranger.sendMessage(sendRequest({ ...followUp, taskId }))))).toBe(-32001);
    }
    const otherTenant = await a2aClient(server.baseUrl, otherTenantKey);
    expect((await otherTenant.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined })).tasks).toEqual([]);
    const own = await reader.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_WORKING, pageToken: '', statusTimestampAfter: undefined });
    expect(own.tasks.map((t) => t.id)).toEqual([taskId]);
    const foreignTenant = await rawRpc(server.baseUrl, otherTenantKey, { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { tenant: 'acme', id: taskId } });
    expect(foreignTenant.status).toBe(200);
    expect(foreignTenant.body.error?.code).toBe(-32602);

    await reader.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    for await (const event of { [Symbol.asyncIterator]: () => stream }) void event;
  });

  it('answers bad input with JSON-RPC invalid params (or the A2A error that names it), never a 5xx', async () => {
    const message = (parts: unknown[], metadata?: unknown): unknown => ({
      jsonrpc: '2.0',
      id: 7,
      method: 'SendMessage',
      params: { message: { messageId: 'm1', role: 'ROLE_USER', parts, ...(metadata === undefined ? {} : { metadata }) } },
    });
    const cases: [string, unknown, number][] = [
      ['remember without content', message([{ data: { skill: 'remember', cell_type: 'Fact' } }]), -32602],
      ['an unknown cell type', message([{ data: { skill: 'remember', content: 'x', cell_type: 'Gossip' } }]), -32602],
      ['an unknown field', message([{ data: { skill: 'recall', query: 'x', bogus: 1 } }]), -32602],
      ['an unknown skill', message([{ data: { skill: 'forget' } }]), -32602],
      ['conflicting skills', message([{ data: { skill: 'recall', query: 'x' } }], { skill: 'remember' }), -32602],
      ['a file part', message([{ url: 'https://example.com/a.pdf', mediaType: 'application/pdf' }]), -32602],
      ['two data parts', message([{ data: { skill: 'recall' } }, { data: { query: 'x' } }]), -32602],
      ['a data part that is no object', message([{ data: [1, 2] }]), -32602],
      ['an empty recall', message([]), -32602],
      ['a negative after_seq', { ...(message([{ data: { skill: 'subscribe', after_seq: -1 } }]) as object), method: 'SendStreamingMessage' }, -32602],
      ['subscribe without streaming', message([{ data: { skill: 'subscribe' } }]), -32004],
      ['no message', { jsonrpc: '2.0', id: 7, method: 'SendMessage', params: {} }, -32602],
      ['params that are no object', { jsonrpc: '2.0', id: 7, method: 'SendMessage', params: [1] }, -32602],
      ['an unknown method', { jsonrpc: '2.0', id: 7, method: 'message/explode', params: {} }, -32601],
      ['a push config (not supported)', { jsonrpc: '2.0', id: 7, method: 'CreateTaskPushNotificationConfig', params: { taskId: 't', url: 'https://x' } }, -32003],
    ];
    for (const [name, body, code] of cases) {
      const reply = await rawRpc(server.baseUrl, writerKey, body);
      expect({ name, status: reply.status, code: reply.body.error?.code }).toEqual({ name, status: 200, code });
    }
    const issues = await rawRpc(server.baseUrl, writerKey, message([{ data: { skill: 'remember', cell_type: 'Fact' } }]));
    expect(issues.body.error?.data).toEqual([
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INVALID_ARGUMENT', domain: 'hyphae' },
      { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'content', description: expect.any(String) }] },
    ]);
    const notJson = await rawRpc(server.baseUrl, writerKey, '{"jsonrpc":');
    expect([notJson.status, notJson.body.error?.code]).toEqual([400, -32700]);
    const unknownVersion = await rawRpc(server.baseUrl, writerKey, message([{ text: 'x' }]), { 'a2a-version': '2.0' });
    expect([unknownVersion.status, unknownVersion.body.error?.code]).toEqual([200, -32009]);
    // The SDK client sees the same codes.
    expect(rpcCodeOf(await caught(writer.sendMessage(sendRequest(userMessage([data({ skill: 'remember' })])))))).toBe(-32602);
  });

  it('speaks A2A 0.3 to clients that ask for no version: its card, message/send and message/stream', async () => {
    const legacyCard = (await (await fetch(`${server.baseUrl}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    expect(isLegacyAgentCard(legacyCard)).toBe(true);
    expect(legacyCard).toMatchObject({
      protocolVersion: '0.3.0',
      url: `${server.baseUrl}/a2a`,
      preferredTransport: 'JSONRPC',
      capabilities: { streaming: true },
      securitySchemes: {
        hyphaeApiKey: { type: 'apiKey', in: 'header', name: 'x-hyphae-key' },
        hyphaeApiKeyBearer: { type: 'http', scheme: 'bearer', bearerFormat: 'Hyphae API key' },
      },
      security: [{ hyphaeApiKey: [] }, { hyphaeApiKeyBearer: [] }],
    });
    expect(parseLegacyAgentCard(legacyCard).skills.map((s) => s.id)).toEqual(['remember', 'recall', 'subscribe']);

    const legacy = (key: string): LegacyJsonRpcTransport => new LegacyJsonRpcTransport({ endpoint: `${server.baseUrl}/a2a`, fetchImpl: fetchWithKey(key) });
    const writer03 = legacy(writerKey);
    const stored = (await writer03.sendMessage(sendRequest(userMessage([data({ skill: 'remember', content: 'Legacy clients speak 0.3', cell_type: 'Fact' })])))) as Message;
    const node = dataOf(stored) as MemoryNode;
    expect(node.content).toBe('Legacy clients speak 0.3');
    const recalled = (await writer03.sendMessage(sendRequest(userMessage([text('Legacy clients speak 0.3')])))) as Message;
    expect((dataOf(recalled) as RecallResult).results[0]?.node_id).toBe(node.node_id);

    const reader03 = legacy(readerKey);
    const stream = reader03.sendMessageStream(sendRequest(userMessage([data({ skill: 'subscribe' })])));
    const opened = (await stream.next()).value as StreamResponse;
    const taskId = opened.payload?.$case === 'task' ? opened.payload.value.id : '';
    await writer03.sendMessage(sendRequest(userMessage([data({ skill: 'remember', content: `${INTEREST} in 0.3`, cell_type: 'Risk', salience: 0.8 })])));
    const update = (await stream.next()).value as StreamResponse;
    const diff = update.payload?.$case === 'artifactUpdate' ? update.payload.value.artifact?.parts[0]?.content : undefined;
    expect(diff?.$case === 'data' ? (diff.value as Diff).source_agent : undefined).toBe('writer');
    expect((await reader03.getTask({ tenant: '', id: taskId, historyLength: undefined })).status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(rpcCodeOf(await caught(legacy(otherTenantKey).getTask({ tenant: '', id: taskId, historyLength: undefined })))).toBe(-32001);
    expect((await reader03.cancelTask({ tenant: '', id: taskId, metadata: undefined })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    for await (const event of { [Symbol.asyncIterator]: () => stream }) void event;

    const bad = await rawRpc(
      server.baseUrl,
      writerKey,
      { jsonrpc: '2.0', id: 3, method: 'message/send', params: { message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'data', data: { skill: 'remember' } }] } } },
      { 'a2a-version': '0.3' },
    );
    expect([bad.status, bad.body.error?.code]).toEqual([200, -32602]);
  });

  it('is absent from the OpenAPI document and from MCP', async () => {
    const document = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path.includes('a2a') || path.includes('well-known'))).toEqual([]);
    const mcp = new McpClient({ name: 'a2a-absence', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), { requestInit: { headers: { 'x-hyphae-key': writerKey } } }));
    try {
      const tools = (await mcp.listTools()).tools.map((tool) => tool.name);
      expect(tools).toHaveLength(11);
      expect(tools.filter((name) => /a2a|remember|subscribe/i.test(name))).toEqual([]);
      const prompts = (await mcp.listPrompts()).prompts.map((prompt) => prompt.name);
      // Without the cell ids: a random UUID holds the letters `a2a` now and then.
      const resources = (await mcp.listResources()).resources.map((resource) => resource.uri.replace(/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}/gi, '<id>'));
      expect([...prompts, ...resources].filter((name) => /a2a/i.test(name))).toEqual([]);
    } finally {
      await mcp.close();
    }
  });
});

describe('A2A subscribe tasks ended by the server', () => {
  let server: A2aTestServer;

  beforeAll(async () => {
    server = await startA2aServer({ a2a: true });
  });

  afterAll(async () => {
    await server?.close();
  });

  const drain = async (stream: AsyncGenerator<StreamResponse, void, undefined>): Promise<TaskState | undefined> => {
    let state: TaskState | undefined;
    for await (const event of { [Symbol.asyncIterator]: () => stream }) {
      if (event.payload?.$case === 'statusUpdate') state = event.payload.value.status?.state;
    }
    return state;
  };

  it('fails the task when its key is revoked, and completes every task when the server closes', async () => {
    const admin = await server.mintKey('acme', 'admin', ['admin']);
    const revoked = await server.mintKey('acme', 'reader');
    const kept = await server.mintKey('acme', 'other-reader');
    const revokedStream = (await a2aClient(server.baseUrl, revoked.key)).sendMessageStream(sendRequest(userMessage([data({ skill: 'subscribe' })])));
    const keptStream = (await a2aClient(server.baseUrl, kept.key)).sendMessageStream(sendRequest(userMessage([data({ skill: 'subscribe' })])));
    expect((await revokedStream.next()).value?.payload?.$case).toBe('task');
    expect((await keptStream.next()).value?.payload?.$case).toBe('task');
    await server.facade.revokeKey(admin.principal, revoked.principal.keyId);
    expect(await drain(revokedStream)).toBe(TaskState.TASK_STATE_FAILED);
    const closing = server.app.close();
    expect(await drain(keptStream)).toBe(TaskState.TASK_STATE_COMPLETED);
    await closing;
  });
});

describe('A2A surface by default', () => {
  let server: A2aTestServer;

  beforeAll(async () => {
    server = await startA2aServer();
  });

  afterAll(async () => {
    await server?.close();
  });

  it('is not served: the card and the endpoint are 404', async () => {
    const { key } = await server.mintKey('acme', 'writer');
    expect((await fetch(`${server.baseUrl}/.well-known/agent-card.json`)).status).toBe(404);
    const reply = await fetch(`${server.baseUrl}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hyphae-key': key },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
    });
    expect(reply.status).toBe(404);
  });
});
