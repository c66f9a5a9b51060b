/**
 * One live stream, whatever its wire: every SSE route and stdio push write through it. Frames sent
 * before it starts are held — bounded — and go out first once it does, so nothing reaches the
 * peer before its subscription is live; a comment frame keeps idle proxies from closing it; a peer
 * that does not read (unsent bytes past the bound) is dropped after one last frame saying so; once
 * ended, a peer that never takes the rest is cut off; a server shutting down closes every stream of
 * its set. The wire is a `StreamSink` (sse-stream.ts for a response, a line writer for stdio), as
 * the MCP TypeScript SDK's `Transport` keeps the protocol apart from the wire.
 */
import { SYSTEM_CLOCK, type StreamClock } from './stream-clock.js';

/** Where a stream's frames go. */
export interface StreamSink {
  write(frame: string): void;
  /** Bytes written but not yet taken by the peer; a sink that cannot tell says 0. */
  readonly unsentBytes: number;
  /** Whether the wire is already ended (by either side). */
  readonly ended: boolean;
  end(): void;
  /** Frees the wire of a peer that never took what was written. */
  destroy(): void;
}

/** Why the bound ended a stream: the backlog held before it started, or a peer reading too slowly. */
export type StreamOverflow = 'backlog' | 'slow_reader';

export interface LiveStreamOptions {
  /** A comment frame this often once started; absent: none. */
  readonly heartbeat?: { readonly everyMs: number; readonly frame: string };
  /** Unsent bytes — held before the start, or written and not yet taken — past which the stream is dropped; default: no bound. */
  readonly maxBufferedBytes?: number;
  /** Once ended, how long the peer may take to read the rest before its wire is destroyed; default 30 s. */
  readonly stallMs?: number;
  /** The bound was passed: the last frame to write (and the place to count it), if any. */
  readonly onDrop?: (reason: StreamOverflow) => string | undefined;
  /** Runs once when the stream closes, whatever closed it (its subscription is freed there). */
  readonly onClose?: () => void;
  /** The last frame a shutdown writes (a listen's result); absent: none. */
  readonly farewell?: () => string;
  readonly clock?: StreamClock;
}

export const STALLED_CLIENT_MS = 30_000;
/** What an SSE route uses unless told otherwise: a comment every 15 s, 1 MiB unsent at most. */
export const SSE_HEARTBEAT_MS = 15_000;
export const SSE_MAX_BUFFERED_BYTES = 1024 * 1024;

interface HeldFrame {
  readonly frame: string;
  readonly delivered: (() => void) | undefined;
}

export class LiveStream {
  private sink: StreamSink | undefined;
  private held: HeldFrame[] = [];
  private heldBytes = 0;
  private overflowed = false;
  private closed = false;
  private cancelHeartbeat: (() => void) | undefined;
  private readonly clock: StreamClock;
  private readonly maxBufferedBytes: number;

  constructor(
    private readonly options: LiveStreamOptions,
    private readonly set?: LiveStreams,
  ) {
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.maxBufferedBytes = options.maxBufferedBytes ?? Infinity;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Writes a frame, or holds it until the start; `delivered` runs once it is written. */
  send(frame: string, delivered?: () => void): void {
    if (this.closed) return;
    const sink = this.sink;
    if (sink === undefined) {
      this.hold(frame, delivered);
      return;
    }
    sink.write(frame);
    delivered?.();
    // A peer that does not keep up is ended (what was written still reaches it), not buffered without bound.
    if (sink.unsentBytes > this.maxBufferedBytes) this.drop('slow_reader');
  }

  /** The subscription is live and the wire's head is out: `opening` first, then what was held, then everything sent. */
  start(sink: StreamSink, opening?: string): void {
    if (this.closed || this.sink !== undefined) return;
    this.sink = sink;
    this.set?.added(this);
    if (opening !== undefined) sink.write(opening);
    const held = this.held;
    this.held = [];
    this.heldBytes = 0;
    for (const { frame, delivered } of held) this.send(frame, delivered);
    if (this.overflowed) this.drop('backlog');
    if (this.options.heartbeat !== undefined && !this.closed) this.beatAfter(this.options.heartbeat.everyMs);
  }

  /** Ends the stream after one last frame saying why (the peer resumes or re-issues). */
  drop(reason: StreamOverflow): void {
    if (this.closed) return;
    this.close(this.options.onDrop?.(reason));
  }

  /** Ends the stream, `lastFrame` last; before its start nothing reaches the wire. */
  close(lastFrame?: string): void {
    if (this.closed) return;
    this.closed = true;
    this.cancelHeartbeat?.();
    this.held = [];
    const sink = this.sink;
    if (sink !== undefined) this.set?.removed(this);
    this.options.onClose?.();
    if (sink === undefined || sink.ended) return;
    if (lastFrame !== undefined) sink.write(lastFrame);
    sink.end();
    // A peer that never reads would keep the socket and its buffer forever.
    this.clock.after(this.options.stallMs ?? STALLED_CLIENT_MS, () => sink.destroy());
  }

  /** The server is going: the farewell frame, if any, then the end. */
  shutdown(): void {
    this.close(this.options.farewell?.());
  }

  private hold(frame: string, delivered: (() => void) | undefined): void {
    if (this.overflowed) return;
    this.held.push({ frame, delivered });
    this.heldBytes += frame.length;
    // Past the bound the tail is dropped and the stream ends after what it holds: the peer resumes from the last frame it got.
    if (this.heldBytes > this.maxBufferedBytes) this.overflowed = true;
  }

  private beatAfter(everyMs: number): void {
    this.cancelHeartbeat = this.clock.after(everyMs, () => {
      if (this.closed || this.options.heartbeat === undefined) return;
      this.send(this.options.heartbeat.frame);
      if (!this.closed) this.beatAfter(everyMs);
    });
  }
}

export interface LiveStreamsOptions {
  /** Told +1 when a stream starts and −1 when a started stream closes (a gauge of open streams). */
  readonly onCount?: (delta: number) => void;
}

/** The started streams of one route or transport, so a shutdown can close them all. */
export class LiveStreams {
  private readonly open = new Set<LiveStream>();

  constructor(private readonly options: LiveStreamsOptions = {}) {}

  get size(): number {
    return this.open.size;
  }

  /** A stream of this set: counted from its start until it closes. */
  stream(options: LiveStreamOptions): LiveStream {
    return new LiveStream(options, this);
  }

  closeAll(): void {
    for (const stream of [...this.open]) stream.shutdown();
  }

  /** @internal */
  added(stream: LiveStream): void {
    this.open.add(stream);
    this.options.onCount?.(1);
  }

  /** @internal */
  removed(stream: LiveStream): void {
    if (this.open.delete(stream)) this.options.onCount?.(-1);
  }
}
