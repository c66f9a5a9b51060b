/**
 * One HTTP/1.x reply read off a socket as its bytes arrive: the status line, the headers, and a
 * body framed by Content-Length, by chunked transfer coding, or by the connection's end. Interim
 * (1xx) replies are skipped. Enough for a POST's reply, nothing more (no upgrades, no HEAD).
 */

/** Longer heads are refused: no embeddings endpoint sends one. */
export const MAX_REPLY_HEAD_BYTES = 64 * 1024;

export interface Http1Reply {
  readonly status: number;
  /** A response header, lower-case name; the first when repeated. */
  header(name: string): string | undefined;
  readonly body: string;
  /** Whether the connection may carry another request. */
  readonly keepAlive: boolean;
}

export class MalformedReplyError extends Error {
  override readonly name = 'MalformedReplyError';
}

type Framing = { readonly kind: 'length'; readonly remaining: number } | { readonly kind: 'chunked' } | { readonly kind: 'close' };

interface Head {
  readonly status: number;
  readonly headers: ReadonlyMap<string, string>;
  readonly keepAlive: boolean;
  framing: Framing;
}

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/;
const CHUNK_SIZE = /^([0-9a-fA-F]{1,15})(?:[ \t]*;.*)?$/;

export class Http1ReplyParser {
  private pending: Buffer = Buffer.alloc(0);
  private head: Head | undefined;
  private readonly body: Buffer[] = [];
  /** Chunked only: the last chunk was read, the trailer section follows. */
  private inTrailers = false;

  /** Takes the next bytes; returns the reply once it is complete. Throws MalformedReplyError. */
  push(chunk: Buffer): Http1Reply | undefined {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    for (;;) {
      if (this.head === undefined) {
        const head = this.readHead();
        if (head === undefined) return undefined;
        // An interim reply: the final one follows on the same connection.
        if (head.status < 200) continue;
        this.head = head;
      }
      return this.readBody(this.head);
    }
  }

  /** The connection ended: the reply, when its body runs to the end of the connection. */
  end(): Http1Reply | undefined {
    return this.head?.framing.kind === 'close' ? this.reply(this.head, false) : undefined;
  }

  private readHead(): Head | undefined {
    const end = this.pending.indexOf(HEAD_END);
    if (end < 0) {
      if (this.pending.length > MAX_REPLY_HEAD_BYTES) throw new MalformedReplyError('the reply head is too long');
      return undefined;
    }
    const lines = this.pending.subarray(0, end).toString('latin1').split('\r\n');
    this.pending = this.pending.subarray(end + HEAD_END.length);
    const status = STATUS_LINE.exec(lines[0] ?? '');
    if (status === null) throw new MalformedReplyError('the reply does not start with an HTTP/1.x status line');
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw new MalformedReplyError('a reply header has no name');
      const name = line.slice(0, colon).trim().toLowerCase();
      if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
    }
    const code = Number(status[2]);
    const connection = headers.get('connection')?.toLowerCase() ?? '';
    const keepAlive = status[1] === '1' ? !connection.includes('close') : connection.includes('keep-alive');
    return { status: code, headers, keepAlive, framing: framingOf(code, headers) };
  }

  private readBody(head: Head): Http1Reply | undefined {
    const { framing } = head;
    if (framing.kind === 'close') {
      this.body.push(this.pending);
      this.pending = Buffer.alloc(0);
      return undefined;
    }
    if (framing.kind === 'length') {
      const take = Math.min(framing.remaining, this.pending.length);
      if (take > 0) this.body.push(this.pending.subarray(0, take));
      this.pending = this.pending.subarray(take);
      head.framing = { kind: 'length', remaining: framing.remaining - take };
      return head.framing.remaining === 0 ? this.reply(head, head.keepAlive) : undefined;
    }
    return this.readChunks(head);
  }

  private readChunks(head: Head): Http1Reply | undefined {
    for (;;) {
      if (this.inTrailers) {
        // Trailer fields, each on its line, end with an empty line.
        const lineEnd = this.pending.indexOf(CRLF);
        if (lineEnd < 0) return undefined;
        this.pending = this.pending.subarray(lineEnd + CRLF.length);
        if (lineEnd === 0) return this.reply(head, head.keepAlive);
        continue;
      }
      const lineEnd = this.pending.indexOf(CRLF);
      if (lineEnd < 0) {
        if (this.pending.length > MAX_REPLY_HEAD_BYTES) throw new MalformedReplyError('a chunk size line is too long');
        return undefined;
      }
      const size = CHUNK_SIZE.exec(this.pending.subarray(0, lineEnd).toString('latin1').trim());
      if (size === null) throw new MalformedReplyError('a chunk size is not hexadecimal');
      const length = Number.parseInt(size[1] as string, 16);
      if (length === 0) {
        this.pending = this.pending.subarray(lineEnd + CRLF.length);
        this.inTrailers = true;
        continue;
      }
      const start = lineEnd + CRLF.length;
      if (this.pending.length < start + length + CRLF.length) return undefined;
      if (!this.pending.subarray(start + length, start + length + CRLF.length).equals(CRLF)) throw new MalformedReplyError('a chunk does not end where its size says');
      this.body.push(this.pending.subarray(start, start + length));
      this.pending = this.pending.subarray(start + length + CRLF.length);
    }
  }

  private reply(head: Head, keepAlive: boolean): Http1Reply {
    const body = Buffer.concat(this.body).toString('utf8');
    // Bytes after a complete reply were not asked for: the connection cannot be trusted with another request.
    const reusable = keepAlive && this.pending.length === 0;
    return { status: head.status, header: (name) => head.headers.get(name), body, keepAlive: reusable };
  }
}

function framingOf(status: number, headers: ReadonlyMap<string, string>): Framing {
  if (status === 204 || status === 304) return { kind: 'length', remaining: 0 };
  const coding = headers.get('transfer-encoding');
  if (coding !== undefined) {
    if (/(?:^|,)\s*chunked\s*$/i.test(coding)) return { kind: 'chunked' };
    return { kind: 'close' };
  }
  const length = headers.get('content-length');
  if (length === undefined) return { kind: 'close' };
  if (!/^\d{1,15}$/.test(length)) throw new MalformedReplyError('the reply has an invalid Content-Length');
  return { kind: 'length', remaining: Number(length) };
}
