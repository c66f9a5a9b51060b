import type { PGlite } from '@electric-sql/pglite';

interface QueuedMessage {
  readonly handlerId: number;
  readonly message: Uint8Array;
  readonly onData: (data: Uint8Array) => void;
  readonly resolve: (bytes: number) => void;
  readonly reject: (error: unknown) => void;
}

const SIMPLE_QUERY = 0x51; // 'Q'
const SYNC = 0x53; // 'S'
const TERMINATE = 0x58; // 'X'
const TYPED_MESSAGES = new Set([0x42, 0x43, 0x44, 0x45, 0x46, 0x48, 0x50, 0x51, 0x53, 0x58, 0x64, 0x63, 0x66, 0x70]);

/**
 * Runs many wire connections on PGlite's one session without mixing them: a connection keeps the
 * engine from its first message until its unit of work ends — a simple query or a Sync outside a
 * transaction — so an extended-protocol batch (Parse…Sync) or a transaction is never interleaved
 * with another connection's messages. (pglite-socket's own queue only guards transactions and
 * stalls after a failed message.)
 */
export class WireQueryQueue {
  private readonly queue: QueuedMessage[] = [];
  private owner: number | undefined;
  private processing = false;

  constructor(private readonly db: PGlite) {}

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      void this.drain();
    });
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  clearQueueForHandler(handlerId: number): void {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const item = this.queue[i];
      if (item?.handlerId === handlerId) {
        this.queue.splice(i, 1);
        item.reject(new Error('connection closed'));
      }
    }
  }

  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.owner !== handlerId) return;
    // exec takes PGlite's query lock itself; wrapping it in runExclusive would wait on that same lock.
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
    this.owner = undefined;
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.processing) return;
    this.processing = true;
    try {
      for (;;) {
        const index = this.owner === undefined ? 0 : this.queue.findIndex((item) => item.handlerId === this.owner);
        const item = index === -1 ? undefined : this.queue.splice(index, 1)[0];
        if (item === undefined) return;
        this.owner = item.handlerId;
        let bytes = 0;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item.message, {
              onRawData: (data) => {
                bytes += data.length;
                item.onData(data);
              },
            }),
          );
          item.resolve(bytes);
        } catch (error) {
          item.reject(error);
        }
        if (endsUnitOfWork(item.message) && !this.db.isInTransaction()) this.owner = undefined;
      }
    } finally {
      this.processing = false;
    }
  }
}

function endsUnitOfWork(message: Uint8Array): boolean {
  const type = message[0];
  // Untyped messages are the startup packet: answered whole, nothing pending after it.
  if (type === undefined || !TYPED_MESSAGES.has(type)) return true;
  return type === SIMPLE_QUERY || type === SYNC || type === TERMINATE;
}
