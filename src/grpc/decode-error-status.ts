/**
 * A gRPC request whose message bytes do not decode is bad input, but Connect-RPC reports it as
 * INTERNAL ("parse binary: …", from a serializer it shares with clients). This wrapper rewrites
 * that one status, after the handler has set it, into INVALID_ARGUMENT with the Hyphae detail.
 */
import type { UniversalHandler, UniversalServerResponse } from '@connectrpc/connect/protocol';
import { findTrailerError, setTrailerStatus } from '@connectrpc/connect/protocol-grpc';
import { Code } from '@connectrpc/connect';
import { InvalidArgumentError } from '../core/errors.js';
import { hyphaeConnectError } from './grpc-errors.js';

function rewriteDecodeFailure(trailer: Headers): void {
  const error = findTrailerError(trailer);
  if (error?.code !== Code.Internal || !error.rawMessage.startsWith('parse binary')) return;
  for (const name of ['grpc-status', 'grpc-message', 'grpc-status-details-bin']) trailer.delete(name);
  setTrailerStatus(
    trailer,
    hyphaeConnectError(new InvalidArgumentError('the request message cannot be decoded', [{ path: '(message)', message: 'not a valid protobuf encoding' }])),
  );
}

async function* statusRewritten(body: AsyncIterable<Uint8Array>, trailer: Headers): AsyncGenerator<Uint8Array> {
  yield* body;
  rewriteDecodeFailure(trailer);
}

export function withDecodeFailuresAsInvalidArgument(handler: UniversalHandler): UniversalHandler {
  const wrapped = async (request: Parameters<UniversalHandler>[0]): Promise<UniversalServerResponse> => {
    const response = await handler(request);
    const { body, trailer } = response;
    if (!(trailer instanceof Headers) || body === undefined || body instanceof Uint8Array) return response;
    return { ...response, body: statusRewritten(body, trailer) };
  };
  return Object.assign(wrapped, handler);
}
