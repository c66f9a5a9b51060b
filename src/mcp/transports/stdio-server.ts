/**
 * MCP over stdio: newline-delimited JSON-RPC on input/output for one agent whose identity was
 * resolved once at start. Nothing but protocol messages is ever written to output.
 * Every revision on one process: `initialize` makes it a handshake session (its push starts after
 * the first handshake reply); requests whose `_meta` declares 2026-07-28 are served statelessly,
 * and each `subscriptions/listen` multiplexes its tagged notifications onto output until the
 * client sends notifications/cancelled for it, or the server ends (it then sends
 * notifications/cancelled).
 */
import type { Readable, Writable } from 'node:stream';
import { UnauthenticatedError, isHyphaeError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { MemoryFacade } from '../../service/memory-facade.js';
import type { JsonRpcId } from '../protocol/json-rpc.js';
import { RPC_INVALID_PARAMS, RPC_INVALID_REQUEST, serializeError, serializeReply } from '../protocol/json-rpc.js';
import { LineSplitter } from '../protocol/line-splitter.js';
import { ASSUMED_PROTOCOL_VERSION } from '../protocol/protocol-version.js';
import { toRpcError } from '../protocol/rpc-errors.js';
import type { McpSession } from '../server/handshake-methods.js';
import type { ListenFilter } from '../server/listen-filter.js';
import type { McpLog } from '../server/mcp-dispatcher.js';
import { McpDispatcher } from '../server/mcp-dispatcher.js';
import { statelessError } from '../server/stateless-methods.js';
import { createMcpFeatures } from '../features/mcp-features.js';
import { InMemorySubscriptions } from '../features/resources/session-subscriptions.js';
import type { McpCallObserver } from '../features/tools/tool-call.js';
import { openListenPush, REVOKED_LISTEN_MESSAGE } from '../features/push/listen-push.js';
import type { ListenPush } from '../features/push/listen-push.js';
import { startStdioPush } from '../features/push/stdio-push.js';
import type { ChannelSettings } from '../features/push/channel-session.js';
import type { HydraCall } from '../features/hydradb/hydradb-tool.js';
import type { ToolsetChoice } from '../features/toolsets.js';

/** Generous for a 32 KiB cell with metadata; bounds memory against a stream that never sends a newline. */
export const MAX_STDIO_MESSAGE_CHARS = 1024 * 1024;

export interface StdioServerOptions {
  readonly facade: MemoryFacade;
  readonly principal: Principal;
  readonly input: Readable;
  readonly output: Writable;
  /** Diagnostics; goes to stderr, never to output. */
  readonly log?: McpLog;
  /** Aborting it (e.g. on SIGTERM) stops reading; replies already in flight are still written. */
  readonly signal?: AbortSignal;
  /** Counts and times tool calls (the process metrics). */
  readonly observer?: McpCallObserver;
  /** Claude Code channel events (declared at initialize, pushed after it); absent: off. */
  readonly channel?: ChannelSettings;
  /** Which toolsets the process serves (default: hyphae's eleven tools). */
  readonly toolsets?: ToolsetChoice;
  /** The HydraDB tools' defaults, from the launch's environment (checked against the key at start). */
  readonly hydradb?: HydraCall;
}

/**
 * The agent's identity for the whole stdio session, from HYPHAE_API_KEY. Throws an
 * UnauthenticatedError whose message can be printed as it is.
 */
/** `apiKey`: HYPHAE_API_KEY as the configuration read it. */
export async function resolveStdioPrincipal(facade: MemoryFacade, apiKey: string | undefined): Promise<Principal> {
  const key = apiKey?.trim();
  if (key === undefined || key === '') {
    throw new UnauthenticatedError('HYPHAE_API_KEY is not set: create a key with `hyphae keys create` and pass it in the environment');
  }
  try {
    return await facade.authenticate(key);
  } catch (error) {
    if (isHyphaeError(error) && error.code === 'UNAUTHENTICATED') {
      throw new UnauthenticatedError('HYPHAE_API_KEY was not accepted: the key is unknown or revoked');
    }
    throw error;
  }
}

/** Serves until input ends or the signal aborts, then resolves once every reply is written. */
export async function runStdioServer(options: StdioServerOptions): Promise<void> {
  const { input, output, signal } = options;
  const log = options.log ?? ((): void => undefined);
  const dispatcher = new McpDispatcher({
    features: createMcpFeatures({
      facade: options.facade,
      log,
      ...(options.observer === undefined ? {} : { observer: options.observer }),
      ...(options.toolsets === undefined ? {} : { toolsets: options.toolsets }),
      ...(options.hydradb === undefined ? {} : { hydradb: options.hydradb }),
    }),
    log,
    channel: options.channel !== undefined,
  });
  const session: McpSession = {
    principal: options.principal,
    protocolVersion: ASSUMED_PROTOCOL_VERSION,
    channel: options.channel !== undefined,
    // The process is the session, so its subscriptions live here.
    subscriptions: new InMemorySubscriptions(options.facade, options.principal),
  };
  // One agent's messages are handled in arrival order, so a store sent right after open_session lands in that session.
  let queue: Promise<void> = Promise.resolve();

  const write = (body: string): void => {
    if (!output.writableEnded && !output.destroyed) output.write(`${body}\n`);
  };
  const push = startStdioPush(
    options.facade,
    options.principal,
    write,
    session,
    (error) => log(`push failed: ${error instanceof Error ? error.name : 'unknown'}`),
    options.channel,
  );
  // Open subscriptions/listen pushes by request id: they share output with everything else.
  const listens = new Map<JsonRpcId, ListenPush>();
  const openListen = async (id: JsonRpcId, filter: ListenFilter): Promise<void> => {
    if (listens.has(id)) {
      write(serializeError(id, { code: RPC_INVALID_PARAMS, message: 'Invalid params: a subscriptions/listen with this id is open' }));
      return;
    }
    try {
      const listen = await openListenPush({
        facade: options.facade,
        principal: options.principal,
        id,
        filter,
        emit: (message) => write(JSON.stringify(message)),
        onError: (error) => log(`listen push lookup failed: ${error instanceof Error ? error.name : 'unknown'}`),
      });
      listens.set(id, listen);
      listen.start();
      // The key was revoked: the listen is answered with UNAUTHENTICATED, as a new request would be.
      void listen.ended?.then(async () => {
        if (listens.get(id) !== listen) return;
        listens.delete(id);
        await listen.close();
        write(serializeError(id, statelessError(toRpcError(new UnauthenticatedError(REVOKED_LISTEN_MESSAGE)))));
      });
    } catch (error) {
      write(serializeError(id, statelessError(toRpcError(error))));
    }
  };
  const cancelListen = async (id: JsonRpcId): Promise<void> => {
    const listen = listens.get(id);
    if (listen === undefined) return;
    listens.delete(id);
    await listen.close();
  };
  const splitter = new LineSplitter(
    {
      line(text) {
        queue = queue
          .then(() => dispatcher.handleText(text, session))
          .then(async (outcome) => {
            if (outcome.kind === 'accepted') {
              if (outcome.cancels !== undefined) await cancelListen(outcome.cancels);
              return;
            }
            if (outcome.kind === 'listen') {
              push.idle();
              await openListen(outcome.id, outcome.filter);
              return;
            }
            write(serializeReply(outcome.reply));
            // The handshake push begins after the first handshake reply; a stateless client never gets it.
            if (outcome.kind === 'answered' && outcome.stateless === true) push.idle();
            else push.ready();
          })
          .catch((error: unknown) => log(`stdio dispatch failed: ${error instanceof Error ? error.name : 'unknown'}`));
      },
      oversized() {
        queue = queue.then(() => write(serializeError(null, { code: RPC_INVALID_REQUEST, message: `Invalid Request: a message is limited to ${MAX_STDIO_MESSAGE_CHARS} characters` })));
      },
    },
    MAX_STDIO_MESSAGE_CHARS,
  );

  await new Promise<void>((resolve) => {
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      input.off('data', onData);
      input.off('end', finish);
      input.off('close', finish);
      input.off('error', onError);
      signal?.removeEventListener('abort', finish);
      splitter.end();
      resolve();
    };
    const onData = (chunk: string | Buffer): void => splitter.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    const onError = (error: Error): void => {
      log(`stdin error: ${error.message}`);
      finish();
    };
    if (signal?.aborted) return finish();
    input.setEncoding('utf8');
    input.on('data', onData);
    input.once('end', finish);
    input.once('close', finish);
    input.once('error', onError);
    signal?.addEventListener('abort', finish, { once: true });
  });
  await queue;
  // The server tears its listen pushes down: on stdio it says so with notifications/cancelled.
  for (const [id, listen] of [...listens]) {
    listens.delete(id);
    write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'the server is shutting down' } }));
    await listen.close();
  }
  await push.close();
}
