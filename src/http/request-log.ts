/**
 * How requests are logged (HYPHAE_REQUEST_LOG, README's configuration table): `info`, fastify's
 * structured JSON lines (received, completed) for a collector — the clustered default; `debug`,
 * one "request completed" line per request at debug — the embedded default, so the terminal of
 * `npm start` keeps its one-time admin key in sight instead of scrolling it away.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { isProbeRoute } from './probe-routes.js';

export type RequestLogLevel = 'info' | 'debug';

class DebugRequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error !== null && error !== undefined) super.requestCompleted(error, request, reply);
    else if (!this.isLogDisabled(request)) reply.log.debug({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

/** The app's log controller: probes and scrapes never logged (they come every few seconds). */
export function requestLogController(level: RequestLogLevel): LogController {
  const options = { requestIdLogLabel: 'request_id', disableRequestLogging: (request: FastifyRequest) => isProbeRoute(request.routeOptions.url) };
  return level === 'debug' ? new DebugRequestLog(options) : new LogController(options);
}
