/**
 * The interceptor in front of every MemoryService call, in REST's order: a client address with too
 * many failed authentications is refused before any database work; then the API key (`x-hyphae-key`
 * metadata, or `authorization: Bearer hy_…`) or an OAuth access token is resolved by the facade (a
 * failure counts against the address); then the call rate of the key the facade resolved — a
 * token's derived key id, so no spelling of one token counts apart. Every outcome is counted with its gRPC status, and everything thrown — by the guard or a
 * handler, unary or mid-stream — leaves as a gRPC status with the Hyphae code in its details.
 */
import { Code, ConnectError, type Interceptor, type StreamResponse } from '@connectrpc/connect';
import { RateLimitedError, UnauthenticatedError } from '../core/errors.js';
import type { MemoryFacade } from '../service/memory-facade.js';
import { API_KEY_HEADER, AUTHORIZATION_HEADER, authenticateCredential, credentialOf, missingCredentialError, type FailedAuthLimiter } from '../surface-shared/index.js';
import { CLIENT_ADDRESS, PRINCIPAL } from './call-context.js';
import type { CallRateLimiter } from './call-rate-limiter.js';
import { isServerFault, toConnectError } from './grpc-errors.js';

/** Structurally a subset of HyphaeMetrics. */
export interface GrpcCallObserver {
  observeGrpcCall(method: string, code: string, seconds: number): void;
}

export interface CallGuardDeps {
  readonly facade: Pick<MemoryFacade, 'authenticate' | 'authenticateBearer'>;
  readonly failedAuth: FailedAuthLimiter;
  readonly rateLimiter: CallRateLimiter;
  readonly observer?: GrpcCallObserver;
  readonly onServerFault?: (error: unknown) => void;
}

/** The status name a call ended with, as the metric label: "ok", "not_found", … */
function statusLabel(error: ConnectError | undefined): string {
  return error === undefined ? 'ok' : (Code[error.code] ?? 'unknown').replace(/[A-Z]/g, (c, i: number) => `${i === 0 ? '' : '_'}${c.toLowerCase()}`);
}

export function callGuard(deps: CallGuardDeps): Interceptor {
  const fail = (error: unknown): ConnectError => {
    if (isServerFault(error)) deps.onServerFault?.(error);
    return toConnectError(error);
  };
  return (next) => async (request) => {
    const started = performance.now();
    const method = request.method.name;
    const finish = (error: ConnectError | undefined): void =>
      deps.observer?.observeGrpcCall(method, statusLabel(error), (performance.now() - started) / 1000);
    try {
      const address = request.contextValues.get(CLIENT_ADDRESS);
      const blockedFor = deps.failedAuth.retryAfterSeconds(address);
      if (blockedFor !== null) throw new RateLimitedError(blockedFor);
      const credential = credentialOf(request.header.get(API_KEY_HEADER), request.header.get(AUTHORIZATION_HEADER));
      let principal;
      try {
        if (credential === undefined) throw missingCredentialError();
        principal = await authenticateCredential(deps.facade, credential);
      } catch (error) {
        if (error instanceof UnauthenticatedError) deps.failedAuth.recordFailure(address);
        throw error;
      }
      const retryAfter = deps.rateLimiter.take(principal.keyId);
      if (retryAfter !== null) throw new RateLimitedError(retryAfter);
      request.contextValues.set(PRINCIPAL, principal);
      const response = await next(request);
      if (!response.stream) {
        finish(undefined);
        return response;
      }
      return { ...response, message: observedStream(response, fail, finish) } satisfies StreamResponse;
    } catch (error) {
      const mapped = fail(error);
      finish(mapped);
      throw mapped;
    }
  };
}

async function* observedStream(
  response: StreamResponse,
  fail: (error: unknown) => ConnectError,
  finish: (error: ConnectError | undefined) => void,
): AsyncGenerator<StreamResponse['message'] extends AsyncIterable<infer M> ? M : never> {
  // A stream the client cancels is returned early, through neither branch below.
  let outcome: ConnectError | undefined = new ConnectError('cancelled by the client', Code.Canceled);
  try {
    yield* response.message;
    outcome = undefined;
  } catch (error) {
    outcome = fail(error);
    throw outcome;
  } finally {
    finish(outcome);
  }
}
