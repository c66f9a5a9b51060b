/**
 * The client side of the `GET /mcp` push for the remote bridge: reads the server's SSE stream and
 * hands each JSON-RPC notification it carries to `deliver`, reconnecting with `Last-Event-ID` so
 * no diff is skipped or repeated across reconnections.
 */
export interface PushStreamReaderOptions {
  readonly url: string;
  readonly headers: () => Record<string, string>;
  readonly deliver: (message: string) => void;
  readonly log: (message: string) => void;
  readonly signal: AbortSignal;
  readonly fetch: typeof fetch;
  /** Delay before reconnecting when the server suggests none; default 2 s. */
  readonly retryMs?: number;
}

/** Parses SSE frames out of text, returning what is left of an unfinished frame. */
export function parseSseFrames(text: string, onFrame: (frame: { id?: string; data?: string; retry?: number }) => void): string {
  let rest = text.replace(/\r\n/g, '\n');
  for (let end = rest.indexOf('\n\n'); end !== -1; end = rest.indexOf('\n\n')) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    const frame: { id?: string; data?: string; retry?: number } = {};
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') data.push(value);
      else if (field === 'id') frame.id = value;
      else if (field === 'retry' && /^\d+$/.test(value)) frame.retry = Number(value);
    }
    if (data.length > 0) frame.data = data.join('\n');
    if (frame.data !== undefined || frame.id !== undefined || frame.retry !== undefined) onFrame(frame);
  }
  return rest;
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/** Runs until the signal aborts or the server says it has no stream (405) or refuses the key. */
export async function readPushStream(options: PushStreamReaderOptions): Promise<void> {
  const { signal, log } = options;
  let lastEventId: string | undefined;
  let retryMs = options.retryMs ?? 2_000;
  while (!signal.aborted) {
    const headers: Record<string, string> = { ...options.headers(), accept: 'text/event-stream' };
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    try {
      const response = await options.fetch(options.url, { method: 'GET', headers, signal });
      if (response.status === 405 || response.status === 401 || response.status === 403) {
        log(`push unavailable: the server answered GET ${response.status}`);
        await response.body?.cancel();
        return;
      }
      if (!response.ok || response.body === null) {
        log(`push stream answered ${response.status}; retrying`);
        await response.body?.cancel();
      } else {
        const decoder = new TextDecoder();
        let buffered = '';
        for await (const chunk of response.body) {
          buffered = parseSseFrames(buffered + decoder.decode(chunk as Uint8Array, { stream: true }), (frame) => {
            if (frame.retry !== undefined) retryMs = frame.retry;
            if (frame.id !== undefined) lastEventId = frame.id;
            if (frame.data !== undefined) options.deliver(frame.data);
          });
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      log(`push stream interrupted: ${error instanceof Error ? error.message : 'unknown error'}`);
    }
    await wait(retryMs, signal);
  }
}
