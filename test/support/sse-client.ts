import { readSseBlocks } from './sse-blocks.js';

/** A minimal Server-Sent Events reader over fetch, for tests: events, comments, and the response status. */
export interface SseEvent {
  readonly id: string | undefined;
  readonly event: string | undefined;
  readonly data: string;
  /** performance.now() when the event was parsed. */
  readonly receivedAt: number;
}

export interface SseConnection {
  readonly status: number;
  readonly headers: Headers;
  readonly events: SseEvent[];
  readonly comments: string[];
  /** Resolves when the server ends the stream (or the client aborts). */
  readonly ended: Promise<void>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseConnection> {
  const abort = new AbortController();
  // These streams read notifications/hyphae/diff, the extension a client asks for with x-hyphae-diffs;
  // they decline Claude Code channel events (tested in test/mcp/channel-*.test.ts), which carry no event id.
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', 'x-hyphae-diffs': 'on', 'x-hyphae-channel': 'off', ...headers },
    signal: abort.signal,
  });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const ended = (async (): Promise<void> => {
    if (!response.body || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      await response.text().catch(() => undefined);
      return;
    }
    await readSseBlocks(response.body, (lines) => {
      let id: string | undefined;
      let event: string | undefined;
      const data: string[] = [];
      for (const line of lines) {
        if (line.startsWith(':')) comments.push(line.slice(1).trim());
        else if (line.startsWith('id:')) id = line.slice(3).trim();
        else if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length > 0) events.push({ id, event, data: data.join('\n'), receivedAt: performance.now() });
    });
  })();
  return { status: response.status, headers: response.headers, events, comments, ended, close: () => abort.abort() };
}
