/**
 * A raw MCP 2026-07-28 client for tests, written from the revision's text (the official SDK does
 * not speak it): per-request `_meta`, the Streamable HTTP request headers, subscriptions/listen as
 * a POST whose response is an SSE stream, and the same over an in-process stdio server.
 */
import { PassThrough } from 'node:stream';
import type { Principal } from '../../../src/core/principal.js';
import { runStdioServer } from '../../../src/mcp/transports/stdio-server.js';
import type { MemoryFacade } from '../../../src/service/memory-facade.js';
import { readSseBlocks } from '../sse-blocks.js';

export const STATELESS_VERSION = '2026-07-28';
export const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
export const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

export type Json = Record<string, unknown>;

export interface RpcMessage {
  readonly jsonrpc: '2.0';
  readonly id?: string | number | null;
  readonly method?: string;
  readonly params?: Json;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- replies are inspected field by field
  readonly result?: any;
  readonly error?: { code: number; message: string; data?: Json };
}

export function statelessMeta(version = STATELESS_VERSION, extra: Json = {}): Json {
  return {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw-stateless-test-client', version: '1.0.0' },
    ...extra,
  };
}

export function statelessRequest(id: string | number, method: string, params: Json = {}, version = STATELESS_VERSION): Json {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: statelessMeta(version) } };
}

/** The headers the revision requires, derived from the body as a conforming client derives them. */
export function statelessHeaders(body: Json, key: string): Record<string, string> {
  const params = (body.params ?? {}) as Json;
  const meta = (params._meta ?? {}) as Json;
  const name = body.method === 'resources/read' ? params.uri : body.method === 'tools/call' || body.method === 'prompts/get' ? params.name : undefined;
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'x-hyphae-key': key,
    'mcp-protocol-version': String(meta['io.modelcontextprotocol/protocolVersion']),
    'mcp-method': String(body.method),
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
  };
}

export interface HttpReply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: RpcMessage | undefined;
}

export async function postJson(url: URL | string, body: unknown, headers: Record<string, string>): Promise<HttpReply> {
  const response = await fetch(url, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await response.text();
  let parsed: RpcMessage | undefined;
  try {
    parsed = JSON.parse(text) as RpcMessage;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

/** One stateless request over HTTP; `headers` adds to (or, with undefined values, removes from) the derived ones. */
export async function statelessPost(url: URL | string, key: string, body: Json, headers: Record<string, string | undefined> = {}): Promise<HttpReply> {
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...statelessHeaders(body, key), ...headers })) if (value !== undefined) merged[name] = value;
  return postJson(url, body, merged);
}

export interface ListenStream {
  readonly status: number;
  readonly headers: Headers;
  /** Every `data:` payload, parsed, in order. */
  readonly messages: RpcMessage[];
  /** Raw SSE field lines other than data (to check that no `id:` is ever sent). */
  readonly fieldLines: string[];
  readonly ended: Promise<void>;
  /** Breaks the stream from the client side (what a dropped connection looks like to the server). */
  abort(): void;
}

/** POSTs subscriptions/listen and reads the SSE response as it arrives. */
export async function openListen(url: URL | string, key: string, id: string | number, notifications: Json): Promise<ListenStream> {
  const body = statelessRequest(id, 'subscriptions/listen', { notifications });
  const abort = new AbortController();
  const response = await fetch(url, { method: 'POST', headers: statelessHeaders(body, key), body: JSON.stringify(body), signal: abort.signal });
  const messages: RpcMessage[] = [];
  const fieldLines: string[] = [];
  const ended = (async (): Promise<void> => {
    if (!response.body) return;
    if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      const text = await response.text();
      messages.push(JSON.parse(text) as RpcMessage);
      return;
    }
    await readSseBlocks(response.body, (lines) => {
      for (const line of lines) {
        if (line.startsWith('data:')) messages.push(JSON.parse(line.slice(5).trim()) as RpcMessage);
        else if (line !== '' && !line.startsWith(':')) fieldLines.push(line);
      }
    });
  })();
  return { status: response.status, headers: response.headers, messages, fieldLines, ended, abort: () => abort.abort() };
}

/** A stdio server in this process, driven by raw lines; every output line is kept in order. */
export interface RawStdio {
  readonly lines: RpcMessage[];
  send(message: unknown): void;
  sendText(text: string): void;
  /** Sends a request and resolves with the reply carrying its id. */
  request(message: Json): Promise<RpcMessage>;
  /** Resolves once a line matching the predicate was written (searching from `from`). */
  next(predicate: (message: RpcMessage) => boolean, from?: number): Promise<RpcMessage>;
  /** Ends input and resolves once the server has finished. */
  close(): Promise<void>;
  /** Aborts the server (SIGTERM) and resolves once it has finished. */
  abort(): Promise<void>;
}

export function startRawStdio(facade: MemoryFacade, principal: Principal): RawStdio {
  const input = new PassThrough();
  const output = new PassThrough();
  const abort = new AbortController();
  const lines: RpcMessage[] = [];
  const waiters = new Set<() => void>();
  let buffered = '';
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let newline = buffered.indexOf('\n');
    while (newline !== -1) {
      lines.push(JSON.parse(buffered.slice(0, newline)) as RpcMessage);
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf('\n');
    }
    for (const wake of [...waiters]) wake();
  });
  const served = runStdioServer({ facade, principal, input, output, signal: abort.signal });
  const next = (predicate: (message: RpcMessage) => boolean, from = 0): Promise<RpcMessage> =>
    new Promise((resolve) => {
      const check = (): boolean => {
        const found = lines.slice(from).find(predicate);
        if (found === undefined) return false;
        waiters.delete(wake);
        resolve(found);
        return true;
      };
      const wake = (): void => void check();
      if (!check()) waiters.add(wake);
    });
  return {
    lines,
    send: (message) => input.write(`${JSON.stringify(message)}\n`),
    sendText: (text) => input.write(`${text}\n`),
    request(message) {
      const from = lines.length;
      input.write(`${JSON.stringify(message)}\n`);
      return next((line) => line.id === message.id && line.method === undefined, from);
    },
    next,
    async close() {
      input.end();
      await served;
    },
    async abort() {
      abort.abort();
      await served;
    },
  };
}
