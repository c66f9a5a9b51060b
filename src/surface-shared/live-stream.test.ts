import { describe, expect, it } from 'vitest';
import { HandClock } from '../../test/support/hand-clock.js';
import { LiveStream, LiveStreams, STALLED_CLIENT_MS, type StreamSink } from './live-stream.js';

/** A wire that records what was written; `unsentBytes` is what the peer has not taken yet, set by the test. */
class RecordingSink implements StreamSink {
  readonly frames: string[] = [];
  unsentBytes = 0;
  ended = false;
  destroyed = false;
  write(frame: string): void {
    this.frames.push(frame);
  }
  end(): void {
    this.ended = true;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

const HEARTBEAT = { everyMs: 1_000, frame: ': hb\n\n' };

describe('LiveStream', () => {
  it('holds what is sent before its start and writes it after the opening, in order', () => {
    const delivered: string[] = [];
    const stream = new LiveStream({});
    stream.send('a', () => delivered.push('a'));
    stream.send('b');
    expect(delivered).toEqual([]);
    const sink = new RecordingSink();
    stream.start(sink, 'open');
    stream.send('c');
    expect(sink.frames).toEqual(['open', 'a', 'b', 'c']);
    expect(delivered).toEqual(['a']);
  });

  it('beats while idle once started, never before, and stops when closed', () => {
    const clock = new HandClock();
    const stream = new LiveStream({ heartbeat: HEARTBEAT, clock });
    clock.advance(5_000);
    const sink = new RecordingSink();
    stream.start(sink);
    clock.advance(2_500);
    expect(sink.frames).toEqual([': hb\n\n', ': hb\n\n']);
    stream.close();
    clock.advance(5_000);
    expect(sink.frames).toEqual([': hb\n\n', ': hb\n\n']);
  });

  it('drops a peer whose unsent bytes pass the bound, after the drop frame, and writes nothing more', () => {
    const reasons: string[] = [];
    let closed = 0;
    const stream = new LiveStream({
      maxBufferedBytes: 10,
      onDrop: (reason) => {
        reasons.push(reason);
        return 'dropped';
      },
      onClose: () => (closed += 1),
    });
    const sink = new RecordingSink();
    stream.start(sink);
    sink.unsentBytes = 10;
    stream.send('at the bound');
    expect(stream.isClosed).toBe(false);
    sink.unsentBytes = 11;
    stream.send('past it');
    stream.send('after');
    expect(sink.frames).toEqual(['at the bound', 'past it', 'dropped']);
    expect(reasons).toEqual(['slow_reader']);
    expect(closed).toBe(1);
    expect(sink.ended).toBe(true);
  });

  it('ends a stream whose held backlog passes the bound after what it held up to the bound', () => {
    const reasons: string[] = [];
    const stream = new LiveStream({ maxBufferedBytes: 5, onDrop: (reason) => (reasons.push(reason), `dropped: ${reason}`) });
    stream.send('123');
    stream.send('456');
    stream.send('789');
    const sink = new RecordingSink();
    stream.start(sink, 'open');
    expect(sink.frames).toEqual(['open', '123', '456', 'dropped: backlog']);
    expect(reasons).toEqual(['backlog']);
    expect(sink.ended).toBe(true);
  });

  it('destroys the wire of a peer that has not taken the rest once the stall time passes', () => {
    const clock = new HandClock();
    const stream = new LiveStream({ clock });
    const sink = new RecordingSink();
    stream.start(sink);
    stream.close('last');
    expect(sink.frames).toEqual(['last']);
    expect(sink.ended).toBe(true);
    clock.advance(STALLED_CLIENT_MS - 1);
    expect(sink.destroyed).toBe(false);
    clock.advance(1);
    expect(sink.destroyed).toBe(true);
  });

  it('closed before its start, touches no wire and frees what it holds', () => {
    let closed = 0;
    const stream = new LiveStream({ onClose: () => (closed += 1) });
    stream.send('held');
    stream.close('never written');
    stream.close();
    const sink = new RecordingSink();
    stream.start(sink, 'open');
    expect(sink.frames).toEqual([]);
    expect(closed).toBe(1);
  });
});

describe('LiveStreams', () => {
  it('counts started streams and closes them all on shutdown, each with its farewell', () => {
    const counts: number[] = [];
    const streams = new LiveStreams({ onCount: (delta) => counts.push(delta) });
    const sinks = [new RecordingSink(), new RecordingSink()];
    const started = sinks.map((sink, index) => {
      const stream = streams.stream({ farewell: () => `bye ${index}` });
      stream.start(sink);
      return stream;
    });
    const unstarted = streams.stream({ farewell: () => 'never' });
    unstarted.send('held');
    expect(streams.size).toBe(2);
    streams.closeAll();
    expect(sinks.map((sink) => sink.frames)).toEqual([['bye 0'], ['bye 1']]);
    expect(sinks.every((sink) => sink.ended)).toBe(true);
    expect(started.every((stream) => stream.isClosed)).toBe(true);
    expect(streams.size).toBe(0);
    expect(counts).toEqual([1, 1, -1, -1]);
  });

  it('forgets a stream its peer closed, counting it once', () => {
    const counts: number[] = [];
    const streams = new LiveStreams({ onCount: (delta) => counts.push(delta) });
    const sink = new RecordingSink();
    const stream = streams.stream({ farewell: () => 'bye' });
    stream.start(sink);
    sink.ended = true;
    stream.close();
    streams.closeAll();
    expect(sink.frames).toEqual([]);
    expect(counts).toEqual([1, -1]);
  });
});
