// client-node builds a new https.Agent without keep-alive for every request, so each request paid
// a TCP connect and a full TLS handshake. The agent it builds carries the TLS identity of that
// moment (CA, client certificate and key, server name, verification), read afresh from the
// kubeconfig and its files; the pool keeps one keep-alive agent per identity, so requests share
// connections until the identity changes (a rotated certificate), and the previous agent's
// connections then close as their requests finish. Bearer tokens are headers, still set per request.
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import type http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';

/** Idle connections close well before the API server's own 90 s idle timeout, so none is reused as the server closes it. */
const IDLE_TIMEOUT_MS = 30_000;

/** A keep-alive agent that, once retired, closes its idle connections and keeps none of the busy ones after their request. */
class KeepAliveTlsAgent extends https.Agent {
  private retired = false;

  retire(): void {
    this.retired = true;
    for (const sockets of Object.values(this.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  }

  // Node destroys the socket when this returns false (@types/node declares it void).
  override keepSocketAlive(socket: Socket): boolean {
    return !this.retired && (super.keepSocketAlive(socket) as unknown as boolean);
  }
}

export class TlsAgentPool {
  private current: { identity: string; agent: KeepAliveTlsAgent } | undefined;

  /**
   * The keep-alive agent for the TLS identity of `built`, the agent client-node made for one request.
   * Anything other than a plain https.Agent (a proxy agent, plain HTTP) is returned as it is.
   */
  agentFor(built: http.Agent | https.Agent): http.Agent | https.Agent {
    if (built.constructor !== https.Agent) return built;
    const { options } = built as https.Agent;
    const identity = digestOf(options);
    if (this.current?.identity !== identity) {
      this.current?.agent.retire();
      this.current = { identity, agent: new KeepAliveTlsAgent({ ...options, keepAlive: true, timeout: IDLE_TIMEOUT_MS }) };
    }
    return this.current.agent;
  }

  /** Close every pooled connection. */
  close(): void {
    this.current?.agent.destroy();
    this.current = undefined;
  }
}

/** A digest over every option of the agent, key by key; buffers (CA, certificate, key) by content. */
function digestOf(options: https.AgentOptions): string {
  const hash = createHash('sha256');
  for (const key of Object.keys(options).sort()) {
    hash.update(`${key}\0`);
    updateWith(hash, (options as Record<string, unknown>)[key]);
  }
  return hash.digest('hex');
}

function updateWith(hash: Hash, value: unknown): void {
  if (Array.isArray(value)) {
    hash.update(`[${value.length}\0`);
    for (const item of value) updateWith(hash, item);
    return;
  }
  const bytes = Buffer.isBuffer(value) ? value : Buffer.from(typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value));
  hash.update(`${typeof value}:${bytes.length}\0`);
  hash.update(bytes);
}
