/**
 * A subscribe task's live diffs. The facade stream is opened while the request is still being
 * answered — so a full stream quota or a missing reader role is a JSON-RPC error, not a failed
 * task — and handed to the executor through the call's context; diffs that arrive in between
 * are held and replayed in order.
 */
import type { ServerCallContext } from '@a2a-js/sdk/server';
import type { Diff } from '../core/entities.js';
import type { Principal } from '../core/principal.js';
import type { LiveSubscription, MemoryFacade } from '../service/memory-facade.js';

export class DiffStream {
  private held: Diff[] = [];
  private listener: ((diff: Diff) => void) | undefined;
  private subscription: LiveSubscription | undefined;
  private closed = false;

  /** Set once an executor has attached; until then the request path owns closing it. */
  get attached(): boolean {
    return this.listener !== undefined;
  }

  /** Settles when the server ends the stream (key revoked, process closing). */
  get ended(): Promise<void> | undefined {
    return this.subscription?.ended;
  }

  static async open(facade: Pick<MemoryFacade, 'subscribeDiffs'>, principal: Principal, afterSeq: number | undefined): Promise<DiffStream> {
    const stream = new DiffStream();
    stream.subscription = await facade.subscribeDiffs(principal, (diff) => stream.deliver(diff), afterSeq);
    return stream;
  }

  private deliver(diff: Diff): void {
    if (this.closed) return;
    if (this.listener === undefined) this.held.push(diff);
    else this.listener(diff);
  }

  attach(listener: (diff: Diff) => void): void {
    this.listener = listener;
    for (const diff of this.held.splice(0)) listener(diff);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.held = [];
    await this.subscription?.close();
  }
}

const DIFF_STREAM = 'hyphae.diffStream';

export function handOver(context: ServerCallContext, stream: DiffStream): void {
  context.state.set(DIFF_STREAM, stream);
}

export function takeOver(context: ServerCallContext): DiffStream | undefined {
  const stream = context.state.get(DIFF_STREAM);
  return stream instanceof DiffStream ? stream : undefined;
}
