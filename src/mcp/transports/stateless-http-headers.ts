/**
 * The request headers of Streamable HTTP in MCP 2026-07-28: `MCP-Protocol-Version` mirrors
 * `_meta.io.modelcontextprotocol/protocolVersion`, `Mcp-Method` the method, and `Mcp-Name` the
 * tool or prompt name or the resource URI (`tools/call`, `resources/read`, `prompts/get`), plain or
 * as `=?base64?…?=`. A missing, malformed or mismatching header is HeaderMismatchError (-32020, 400),
 * so an intermediary routing on headers can never disagree with what the server executes.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isPlainObject } from '../protocol/json-rpc.js';
import type { StatelessRejection } from '../protocol/stateless-meta.js';
import { RPC_HEADER_MISMATCH, declaredVersionOf } from '../protocol/stateless-meta.js';

const NAME_SOURCES: Readonly<Record<string, 'name' | 'uri'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};
const BASE64_SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

function mismatch(message: string): StatelessRejection {
  return { httpStatus: 400, error: { code: RPC_HEADER_MISMATCH, message: `Header mismatch: ${message}` } };
}

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** A header value as the client meant it: the Base64 sentinel decoded; null when the encoding is broken. */
export function decodeHeaderValue(value: string): string | null {
  const encoded = BASE64_SENTINEL.exec(value);
  if (encoded === null) return value;
  const base64 = encoded[1] ?? '';
  if (base64.length % 4 !== 0) return null;
  const bytes = Buffer.from(base64, 'base64');
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  return Buffer.from(text, 'utf8').equals(bytes) ? text : null;
}

/** The header checks of one stateless request body (a JSON-RPC request whose `_meta` declares its version). */
export function checkStatelessHeaders(headers: IncomingHttpHeaders, body: Readonly<Record<string, unknown>>): StatelessRejection | null {
  const version = single(headers, 'mcp-protocol-version');
  if (version === undefined) return mismatch('the MCP-Protocol-Version header is required');
  const declared = declaredVersionOf(body.params);
  if (declared !== undefined && version !== declared) return mismatch('the MCP-Protocol-Version header does not match _meta protocolVersion');
  const method = single(headers, 'mcp-method');
  if (method === undefined) return mismatch('the Mcp-Method header is required');
  if (method !== body.method) return mismatch('the Mcp-Method header does not match the method');
  const source = typeof body.method === 'string' ? NAME_SOURCES[body.method] : undefined;
  if (source === undefined) return null;
  const params = isPlainObject(body.params) ? body.params : {};
  const expected = params[source];
  // A body without a usable name is invalid params, which the method itself reports.
  if (typeof expected !== 'string') return null;
  const raw = single(headers, 'mcp-name');
  if (raw === undefined) return mismatch(`the Mcp-Name header is required for ${body.method}`);
  const name = decodeHeaderValue(raw);
  if (name === null) return mismatch('the Mcp-Name header is not valid =?base64?…?= text');
  if (name !== expected) return mismatch(`the Mcp-Name header does not match params.${source}`);
  return null;
}
