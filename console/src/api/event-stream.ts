/**
 * Server-sent events over fetch: EventSource cannot send the `x-hyphae-key` header, so the console
 * reads the stream itself. Reconnects after a drop, with a growing pause, until aborted.
 */
import { ApiError, type ApiClient } from './client.js';

export interface StreamEvent {
  readonly event: string;
  readonly data: string;
  readonly id: string | undefined;
}

export interface EventStreamHandlers {
  onEvent(event: StreamEvent): void;
  /** Connected (true) or waiting to reconnect (false). */
  onStatus(open: boolean, error?: ApiError): void;
}

/** Splits SSE text into events; returns the unfinished tail to prepend to the next chunk. */
export function parseEventBlocks(text: string, emit: (event: StreamEvent) => void): string {
  const blocks = text.replace(/\r\n?/g, '\n').split('\n\n');
  const tail = blocks.pop() ?? '';
  for (const block of blocks) {
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
    }
    if (data.length > 0) emit({ event, data: data.join('\n'), id });
  }
  return tail;
}

const MAX_PAUSE_MS = 10_000;

export function followEventStream(api: ApiClient, path: string, handlers: EventStreamHandlers, signal: AbortSignal): void {
  let pauseMs = 500;
  const run = async (): Promise<void> => {
    while (!signal.aborted) {
      try {
        const response = await api.stream(path, signal);
        if (response.body === null) throw new Error('stream without a body');
        handlers.onStatus(true);
        pauseMs = 500;
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let pending = '';
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          pending = parseEventBlocks(pending + value, handlers.onEvent);
        }
        handlers.onStatus(false);
      } catch (error) {
        if (signal.aborted) return;
        const refusal = error instanceof ApiError ? error : undefined;
        handlers.onStatus(false, refusal);
        // A refused key or role will not change by retrying.
        if (refusal !== undefined && (refusal.status === 401 || refusal.status === 403)) return;
      }
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      pauseMs = Math.min(pauseMs * 2, MAX_PAUSE_MS);
    }
  };
  void run();
}
