/**
 * A request whose message does not decode is bad input, but Connect-RPC reports a protobuf decode
 * failure as INTERNAL ("parse binary: …", from a serializer it shares with clients), a compressed
 * message it cannot decompress as INTERNAL too, and a JSON one
 * as INVALID_ARGUMENT without the Hyphae detail. This wrapper rewrites either status, after the
 * handler has written it, into INVALID_ARGUMENT with the Hyphae detail, wherever the protocol puts
 * it: the gRPC trailers, the gRPC-Web trailer frame, the Connect end-of-stream message, or the
 * Connect unary error body (with its HTTP status).
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { createAsyncIterable, encodeEnvelope, mergeNonProtocolHeaders, type UniversalHandler, type UniversalServerResponse } from '@connectrpc/connect/protocol';
import {
  codeToHttpStatus,
  contentTypeStreamRegExp as connectStreamContentType,
  contentTypeUnaryRegExp as connectUnaryContentType,
  endStreamFlag,
  endStreamFromJson,
  endStreamToJson,
  errorFromJsonBytes,
  errorToJsonBytes,
} from '@connectrpc/connect/protocol-connect';
import { findTrailerError, setTrailerStatus } from '@connectrpc/connect/protocol-grpc';
import { contentTypeRegExp as grpcWebContentType, trailerFlag, trailerParse, trailerSerialize } from '@connectrpc/connect/protocol-grpc-web';
import { InvalidArgumentError } from '../core/errors.js';
import { hyphaeConnectError } from './grpc-errors.js';

// Connect's envelope reader: a compressed message with no encoding named, or one that does not decompress (INTERNAL or INVALID_ARGUMENT by protocol).
const COMPRESSION_FAILURE = /^(received compressed envelope, but do not know how to decompress|decompression failed)$/;
// protobuf-es's fromJson: "cannot decode message X from JSON: …" or "cannot decode field X.y from JSON: …".
const JSON_DECODE_FAILURE = /^cannot decode (message|field) \S+ from JSON/;

/** The INVALID_ARGUMENT that replaces `error` when it is a request message that did not decode. */
function replacementFor(error: ConnectError | undefined): ConnectError | undefined {
  if (error === undefined) return undefined;
  let issue: string;
  if (error.code === Code.Internal && error.rawMessage.startsWith('parse binary')) issue = 'not a valid protobuf encoding';
  else if ((error.code === Code.Internal || error.code === Code.InvalidArgument) && COMPRESSION_FAILURE.test(error.rawMessage)) issue = error.rawMessage;
  else if (error.code === Code.InvalidArgument && JSON_DECODE_FAILURE.test(error.rawMessage)) issue = error.rawMessage;
  else return undefined;
  return hyphaeConnectError(new InvalidArgumentError('the request message cannot be decoded', [{ path: '(message)', message: issue }]));
}

/** gRPC and gRPC-Web: the status fields of a trailer; true when they were rewritten. */
function rewriteTrailer(trailer: Headers): boolean {
  const replacement = replacementFor(findTrailerError(trailer));
  if (replacement === undefined) return false;
  for (const name of ['grpc-status', 'grpc-message', 'grpc-status-details-bin']) trailer.delete(name);
  setTrailerStatus(trailer, replacement);
  return true;
}

/** The data of `chunk` when it is exactly one uncompressed envelope with `flags`. */
function soleEnvelope(chunk: Uint8Array, flags: number): Uint8Array | undefined {
  if (chunk.byteLength < 5 || chunk[0] !== flags) return undefined;
  const length = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength).getUint32(1);
  return length + 5 === chunk.byteLength ? chunk.subarray(5) : undefined;
}

function rewriteGrpcWebTrailer(chunk: Uint8Array): Uint8Array | undefined {
  const data = soleEnvelope(chunk, trailerFlag);
  if (data === undefined) return undefined;
  const trailer = trailerParse(data);
  return rewriteTrailer(trailer) ? encodeEnvelope(trailerFlag, trailerSerialize(trailer)) : undefined;
}

function rewriteConnectEndStream(chunk: Uint8Array): Uint8Array | undefined {
  const data = soleEnvelope(chunk, endStreamFlag);
  if (data === undefined) return undefined;
  const end = parsedOrUndefined(() => endStreamFromJson(data));
  const replacement = replacementFor(end?.error);
  if (end === undefined || replacement === undefined) return undefined;
  return encodeEnvelope(endStreamFlag, new TextEncoder().encode(JSON.stringify(endStreamToJson(end.metadata, replacement, undefined))));
}

/** What Connect's own parsers make of a body it wrote; undefined should one not parse (they throw). */
function parsedOrUndefined<T>(parse: () => T): T | undefined {
  try {
    return parse();
  } catch {
    return undefined;
  }
}

/** `it` again from the start, with `first` (already read from it) in front; return and throw reach `it`. */
function replayed(first: IteratorResult<Uint8Array>, it: AsyncIterator<Uint8Array>): AsyncIterable<Uint8Array> {
  let pending: IteratorResult<Uint8Array> | undefined = first;
  const iterator: AsyncIterator<Uint8Array> = {
    next: () => {
      const result = pending;
      pending = undefined;
      return result === undefined ? it.next() : Promise.resolve(result);
    },
    return: (value?: unknown) => it.return?.(value) ?? Promise.resolve({ done: true, value: undefined }),
    throw: (error?: unknown) => it.throw?.(error) ?? Promise.reject(error),
  };
  return { [Symbol.asyncIterator]: () => iterator };
}

async function* trailerRewrittenAtEnd(body: AsyncIterable<Uint8Array>, trailer: Headers): AsyncGenerator<Uint8Array> {
  yield* body;
  rewriteTrailer(trailer);
}

/**
 * The response with its first body chunk rewritten, when that chunk is the whole answer to a
 * message that did not decode (the failure comes before any response message). Connect's handlers
 * have that chunk ready when they return, so reading it here waits for nothing.
 */
async function firstChunkRewritten(response: UniversalServerResponse, rewrite: (chunk: Uint8Array) => UniversalServerResponse | undefined): Promise<UniversalServerResponse> {
  const { body } = response;
  if (body === undefined || body instanceof Uint8Array) return response;
  const it = body[Symbol.asyncIterator]();
  const first = await it.next();
  const rewritten = first.done === true ? undefined : rewrite(first.value);
  if (rewritten === undefined) return { ...response, body: replayed(first, it) };
  await it.return?.();
  return rewritten;
}

async function rewriteDecodeFailure(response: UniversalServerResponse): Promise<UniversalServerResponse> {
  const { header, trailer, body } = response;
  if (trailer instanceof Headers) {
    return body === undefined || body instanceof Uint8Array ? response : { ...response, body: trailerRewrittenAtEnd(body, trailer) };
  }
  if (!(header instanceof Headers)) return response;
  const contentType = header.get('content-type') ?? '';
  if (grpcWebContentType.test(contentType) || connectStreamContentType.test(contentType)) {
    const rewrite = grpcWebContentType.test(contentType) ? rewriteGrpcWebTrailer : rewriteConnectEndStream;
    return firstChunkRewritten(response, (chunk) => {
      const replaced = rewrite(chunk);
      return replaced === undefined ? undefined : { ...response, body: createAsyncIterable([replaced]) };
    });
  }
  // A Connect unary error: the HTTP status and a JSON body (compressed only when large; this one is not).
  if (response.status === 200 || !connectUnaryContentType.test(contentType) || header.has('content-encoding')) return response;
  return firstChunkRewritten(response, (chunk) => {
    const replacement = replacementFor(parsedOrUndefined(() => errorFromJsonBytes(chunk, undefined, new ConnectError('unparsable error body', Code.Unknown))));
    if (replacement === undefined) return undefined;
    const replaced = errorToJsonBytes(replacement, undefined);
    mergeNonProtocolHeaders(header, replacement.metadata);
    header.set('content-length', String(replaced.byteLength));
    return { ...response, status: codeToHttpStatus(replacement.code), body: createAsyncIterable([replaced]) };
  });
}

export function withDecodeFailuresAsInvalidArgument(handler: UniversalHandler): UniversalHandler {
  const wrapped = async (request: Parameters<UniversalHandler>[0]): Promise<UniversalServerResponse> => rewriteDecodeFailure(await handler(request));
  return Object.assign(wrapped, handler);
}
