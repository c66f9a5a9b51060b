/**
 * MCP session ids over HTTP. The server mints one at `initialize` and keeps nothing about it but
 * the resource subscriptions made under it, so any replica accepts any id and HTTP stays
 * stateless; a client that sends none has one agent-wide session (key '').
 */
import { randomUUID } from 'node:crypto';

export const MCP_SESSION_HEADER = 'mcp-session-id';
const SESSION_ID = /^[\x21-\x7e]{1,128}$/;

export function mintSessionId(): string {
  return randomUUID();
}

/** The subscription key of a request's session header: '' when absent, null when malformed. */
export function sessionKeyOf(header: string | string[] | undefined): string | null {
  if (header === undefined) return '';
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === '') return '';
  return SESSION_ID.test(value) ? value : null;
}
