/**
 * The experimental `hyphae/diff` extension of the handshake revisions: one
 * `notifications/hyphae/diff` per diff that reaches the caller's inbox, for clients that ask —
 * over stdio by declaring the experimental capability at `initialize`, on `GET /mcp` with the
 * `x-hyphae-diffs` header. The stateless revision does not offer it.
 */
import type { Diff } from '../../core/entities.js';
import type { JsonRpcNotificationMessage } from './json-rpc.js';
import { isPlainObject } from './json-rpc.js';

export const DIFF_NOTIFICATION_METHOD = 'notifications/hyphae/diff';
/** The experimental capability a client declares at `initialize` to receive notifications/hyphae/diff. */
export const DIFFS_CAPABILITY = 'hyphae/diffs';
/** The request header with which a client asks for notifications/hyphae/diff on its GET /mcp stream. */
export const DIFFS_HEADER = 'x-hyphae-diffs';

export function diffNotification(diff: Diff): JsonRpcNotificationMessage {
  return { jsonrpc: '2.0', method: DIFF_NOTIFICATION_METHOD, params: { diff } };
}

/** Whether an initialize request's client capabilities ask for notifications/hyphae/diff. */
export function clientWantsDiffs(params: Readonly<Record<string, unknown>>): boolean {
  const capabilities = params.capabilities;
  return isPlainObject(capabilities) && isPlainObject(capabilities.experimental) && capabilities.experimental[DIFFS_CAPABILITY] !== undefined;
}

/** Whether a GET /mcp request's `x-hyphae-diffs` header asks for notifications/hyphae/diff. */
export function headerWantsDiffs(raw: string | string[] | undefined): boolean {
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim().toLowerCase();
  return value === 'on' || value === '1' || value === 'true' || value === 'yes';
}
