import { connect } from '@nats-io/transport-node';
import type { NatsConnection, Status } from '@nats-io/transport-node';
import { InvalidArgumentError, UnavailableError } from '../core/errors.js';
import type { Bus, BusSubscription, DiffEnvelope } from './bus.js';
import type { BusConnectionEvents } from './bus-connection.js';
import { isValidPublishSubject, isValidSubscribePattern } from './subject-match.js';

export interface NatsBusOptions {
  /** One URL or a comma-separated list (HYPHAE_NATS_URL), or an array of URLs. */
  readonly servers: string | readonly string[];
  readonly name?: string;
  /** Delay between reconnection attempts; reconnection never gives up. */
  readonly reconnectTimeWaitMs?: number;
  /** How long a publish waits for the server's acknowledgement (PING/PONG) before failing. */
  readonly publishTimeoutMs?: number;
  /** How long the first connection may take. */
  readonly connectTimeoutMs?: number;
}

const DEFAULT_RECONNECT_WAIT_MS = 1_000;
const DEFAULT_PUBLISH_TIMEOUT_MS = 5_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

/**
 * Diffs over core NATS, JSON-encoded. `publish` resolves only once the server has acknowledged
 * everything sent before it (a flush), and fails fast while disconnected instead of buffering:
 * the client drops its buffer on reconnection, so a buffered publish would be a silent loss.
 * Loss between server and subscribers is repaired by the live feed's catch-up from PostgreSQL.
 */
export class NatsBus implements Bus, BusConnectionEvents {
  readonly kind = 'nats' as const;
  private connected = true;
  private readonly listeners = new Set<(connected: boolean) => void>();

  private constructor(
    private readonly connection: NatsConnection,
    private readonly publishTimeoutMs: number,
  ) {
    void this.watchStatus();
  }

  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    const servers = typeof options.servers === 'string' ? options.servers.split(',').map((s) => s.trim()) : [...options.servers];
    try {
      const connection = await connect({
        servers,
        name: options.name ?? 'hyphae',
        reconnect: true,
        maxReconnectAttempts: -1,
        reconnectTimeWait: options.reconnectTimeWaitMs ?? DEFAULT_RECONNECT_WAIT_MS,
        timeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      });
      return new NatsBus(connection, options.publishTimeoutMs ?? DEFAULT_PUBLISH_TIMEOUT_MS);
    } catch (cause) {
      throw new UnavailableError(`cannot connect to NATS at ${servers.join(',')}`, { cause });
    }
  }

  async publish(subject: string, envelope: DiffEnvelope): Promise<void> {
    if (!isValidPublishSubject(subject)) throw new InvalidArgumentError(`invalid bus subject: ${subject}`);
    if (!this.connected || this.connection.isClosed()) throw new UnavailableError('NATS is disconnected');
    try {
      this.connection.publish(subject, JSON.stringify(envelope));
    } catch (cause) {
      throw new UnavailableError('NATS publish failed', { cause });
    }
    await this.acknowledged();
  }

  async subscribe(subject: string, onMessage: (envelope: DiffEnvelope) => void): Promise<BusSubscription> {
    if (!isValidSubscribePattern(subject)) throw new InvalidArgumentError(`invalid bus subject: ${subject}`);
    if (this.connection.isClosed()) throw new UnavailableError('NATS connection is closed');
    const subscription = this.connection.subscribe(subject, {
      callback: (error, message) => {
        if (error) return;
        const envelope = parseEnvelope(message.string());
        if (envelope) onMessage(envelope);
      },
    });
    // Once the server has the interest, a caller may catch up from PostgreSQL without a window.
    // While disconnected the client re-subscribes on reconnection, and reconnection is signalled.
    if (this.connected) await this.acknowledged().catch(() => undefined);
    return {
      unsubscribe: async (): Promise<void> => {
        if (!subscription.isClosed()) subscription.unsubscribe();
      },
    };
  }

  isConnected(): boolean {
    return this.connected && !this.connection.isClosed();
  }

  onConnectionChange(listener: (connected: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  async close(): Promise<void> {
    if (this.connection.isClosed()) return;
    await this.connection.drain().catch(() => this.connection.close());
  }

  private async acknowledged(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new UnavailableError('NATS did not acknowledge in time')), this.publishTimeoutMs);
    });
    try {
      await Promise.race([this.connection.flush(), timeout]);
    } catch (cause) {
      throw cause instanceof UnavailableError ? cause : new UnavailableError('NATS did not acknowledge', { cause });
    } finally {
      clearTimeout(timer);
    }
  }

  private async watchStatus(): Promise<void> {
    for await (const status of this.connection.status()) this.onStatus(status);
  }

  private onStatus(status: Status): void {
    if (status.type === 'disconnect' || status.type === 'close') this.setConnected(false);
    else if (status.type === 'reconnect') this.setConnected(true);
  }

  private setConnected(connected: boolean): void {
    if (this.connected === connected) return;
    this.connected = connected;
    for (const listener of this.listeners) listener(connected);
  }
}

function parseEnvelope(text: string): DiffEnvelope | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const candidate = value as Partial<DiffEnvelope>;
    const ok =
      typeof candidate.tenantId === 'string' &&
      typeof candidate.recipientAgent === 'string' &&
      typeof candidate.diff === 'object' &&
      candidate.diff !== null &&
      typeof candidate.diff.seq === 'number';
    return ok ? (candidate as DiffEnvelope) : undefined;
  } catch {
    return undefined;
  }
}
