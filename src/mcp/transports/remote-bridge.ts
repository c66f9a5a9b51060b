/**
 * `hyphae mcp --remote URL`: bridges a local stdio MCP client to a running server's `POST /mcp`,
 * so several agents on one machine share one `hyphae serve`. Each stdin line becomes one POST
 * (client/remote-session.ts); each reply becomes one stdout line. After initialization the bridge
 * also reads the server's GET /mcp push stream and writes what it pushes (resources/updated,
 * list_changed, hyphae/diff when the client declared the experimental `hyphae/diffs`
 * capability, Claude Code channel events unless this end turned them off) as lines.
 */
import type { Readable, Writable } from 'node:stream';
import { LineSplitter } from '../protocol/line-splitter.js';
import { readPushStream } from '../client/push-stream-reader.js';
import { createRemoteSession, errorLine } from '../client/remote-session.js';
import { MAX_STDIO_MESSAGE_CHARS } from './stdio-server.js';

export interface RemoteBridgeOptions {
  /** The server's MCP endpoint, e.g. `http://127.0.0.1:8787/mcp`. */
  readonly url: string;
  readonly apiKey: string;
  readonly input: Readable;
  readonly output: Writable;
  readonly log?: (message: string) => void;
  readonly signal?: AbortSignal;
  /** Injected in tests; defaults to the global fetch. */
  readonly fetch?: typeof fetch;
  /**
   * After initialization, also open the server's push stream (`GET /mcp`) and write the
   * notifications it pushes as lines, as an HTTP client would receive them.
   */
  readonly push?: boolean;
  /** False asks the server for no Claude Code channel events (HYPHAE_MCP_CHANNEL=off where the bridge runs). */
  readonly channel?: boolean;
  /** Extra headers on every request and the push stream (the HydraDB toolset's database and collection). */
  readonly headers?: Readonly<Record<string, string>>;
}

export async function runRemoteBridge(options: RemoteBridgeOptions): Promise<void> {
  const { input, output, signal } = options;
  const log = options.log ?? ((): void => undefined);
  const post = options.fetch ?? fetch;
  // Forwarded in arrival order, as the local stdio server handles them.
  let queue: Promise<void> = Promise.resolve();
  const stopPush = new AbortController();
  let pushStream: Promise<void> | undefined;

  const write = (line: string): void => {
    if (!output.writableEnded && !output.destroyed) output.write(`${line}\n`);
  };
  const session = createRemoteSession({
    url: options.url,
    apiKey: options.apiKey,
    fetch: post,
    log,
    ...(signal === undefined ? {} : { signal }),
    write,
    declineChannel: options.channel === false,
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    onInitialized: () => {
      if (options.push !== true || pushStream !== undefined) return;
      pushStream = readPushStream({
        url: options.url,
        headers: () => session.pushHeaders(),
        deliver: (message) => write(message.replace(/\n/g, ' ')),
        log,
        signal: stopPush.signal,
        fetch: post,
      });
    },
  });

  const splitter = new LineSplitter(
    {
      line(text) {
        queue = queue
          .then(() => session.forward(text))
          .catch((error: unknown) => log(`bridge failed: ${error instanceof Error ? error.message : 'unknown error'}`));
      },
      oversized() {
        queue = queue.then(() => write(errorLine(null, 'TOO_LARGE', `a message is limited to ${MAX_STDIO_MESSAGE_CHARS} characters`)));
      },
    },
    MAX_STDIO_MESSAGE_CHARS,
  );

  await new Promise<void>((resolve) => {
    const finish = (): void => {
      input.off('data', onData);
      signal?.removeEventListener('abort', finish);
      splitter.end();
      resolve();
    };
    const onData = (chunk: string | Buffer): void => splitter.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    if (signal?.aborted) return finish();
    input.setEncoding('utf8');
    input.on('data', onData);
    input.once('end', finish);
    input.once('close', finish);
    signal?.addEventListener('abort', finish, { once: true });
  });
  await queue;
  stopPush.abort();
  await pushStream;
}
