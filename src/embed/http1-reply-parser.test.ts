import { describe, expect, it } from 'vitest';
import { Http1ReplyParser, MAX_REPLY_HEAD_BYTES, MalformedReplyError, type Http1Reply } from './http1-reply-parser.js';

/** Feeds `bytes` in pieces of `size` bytes; the reply and the index of the piece that completed it. */
function feed(bytes: Buffer, size: number): { reply: Http1Reply | undefined; at: number; pieces: number } {
  const parser = new Http1ReplyParser();
  const pieces = Math.ceil(bytes.length / size);
  for (let i = 0; i < pieces; i++) {
    const reply = parser.push(bytes.subarray(i * size, (i + 1) * size));
    if (reply !== undefined) return { reply, at: i, pieces };
  }
  return { reply: parser.end(), at: pieces, pieces };
}

const text = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('Http1ReplyParser', () => {
  const body = '{"vector":"AAAA","word":"naïve — ✓"}';
  const lengthReply = text(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nRetry-After: 3\r\nretry-after: 9\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);

  it.each([1, 2, 7, 64, 4096])('reads a Content-Length reply fed %i bytes at a time, complete with its last byte', (size) => {
    const { reply, at, pieces } = feed(lengthReply, size);
    expect(at).toBe(pieces - 1);
    expect(reply?.status).toBe(200);
    expect(reply?.body).toBe(body);
    expect(reply?.header('content-type')).toBe('application/json');
    expect(reply?.header('retry-after')).toBe('3');
    expect(reply?.keepAlive).toBe(true);
  });

  it.each([1, 3, 11, 4096])('joins a chunked body (extensions, trailers) fed %i bytes at a time', (size) => {
    const [first, second] = [Buffer.from(body.slice(0, 10)), Buffer.from(body.slice(10))];
    const chunked = text(
      `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${first.length.toString(16)};name=x\r\n${first.toString()}\r\n${second.length.toString(16).toUpperCase()}\r\n${second.toString()}\r\n0\r\nX-Trailer: 1\r\n\r\n`,
    );
    const { reply, at, pieces } = feed(chunked, size);
    expect(at).toBe(pieces - 1);
    expect(reply?.body).toBe(body);
    expect(reply?.keepAlive).toBe(true);
  });

  it('skips an interim reply, and reads a 204 with no body', () => {
    expect(feed(text('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}'), 5).reply).toMatchObject({ status: 201, body: '{}' });
    expect(feed(text('HTTP/1.1 204 No Content\r\n\r\n'), 100).reply).toMatchObject({ status: 204, body: '', keepAlive: true });
  });

  it('keeps a connection only when the reply allows it', () => {
    expect(feed(text('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}'), 100).reply?.keepAlive).toBe(false);
    expect(feed(text('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}'), 100).reply?.keepAlive).toBe(false);
    expect(feed(text('HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\n{}'), 100).reply?.keepAlive).toBe(true);
    // Bytes past the reply's end: nothing asked for them, so the connection is not reused.
    expect(feed(text('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}HTTP'), 100).reply?.keepAlive).toBe(false);
  });

  it('reads a body without length or chunking to the end of the connection, and has no reply if the connection ends early', () => {
    const parser = new Http1ReplyParser();
    expect(parser.push(text('HTTP/1.1 200 OK\r\n\r\n{"a"'))).toBeUndefined();
    expect(parser.push(text(':1}'))).toBeUndefined();
    expect(parser.end()).toMatchObject({ status: 200, body: '{"a":1}', keepAlive: false });

    const cut = new Http1ReplyParser();
    expect(cut.push(text('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}'))).toBeUndefined();
    expect(cut.end()).toBeUndefined();
  });

  it('refuses what is not an HTTP/1.x reply', () => {
    expect(() => new Http1ReplyParser().push(text('SSH-2.0-OpenSSH\r\n\r\n'))).toThrow(MalformedReplyError);
    expect(() => new Http1ReplyParser().push(text('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'))).toThrow(/hexadecimal/);
    expect(() => new Http1ReplyParser().push(text('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n'))).toThrow(/size says/);
    expect(() => new Http1ReplyParser().push(text('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n'))).toThrow(/Content-Length/);
    expect(() => new Http1ReplyParser().push(Buffer.alloc(MAX_REPLY_HEAD_BYTES + 1, 'a'))).toThrow(/too long/);
  });
});
