/**
 * App-wide security defaults (docs/security.md), installed on the root instance so they cover every route
 * registered after them — REST, `/mcp` and the rest: Host allowlist (421), browser Origin
 * allowlist (403; same-origin passes) with CORS for listed origins only, and security headers on every response.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HyphaeError } from '../core/errors.js';
import { hyphaeErrorBody } from './error-reply.js';
import type { HttpConfig } from './http-config.js';
import { createHostAllowlist } from './host-allowlist.js';
import {
  CORS_ALLOWED_HEADERS,
  CORS_ALLOWED_METHODS,
  CORS_EXPOSED_HEADERS,
  CORS_MAX_AGE_SECONDS,
  createOriginAllowlist,
  isSameOrigin,
} from './origin-policy.js';
import { isProbeRoute } from './probe-routes.js';

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

function refuse(reply: FastifyReply, status: number, error: HyphaeError): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(hyphaeErrorBody(error));
}

export function installSecurityHooks(app: FastifyInstance, config: HttpConfig): void {
  const hostAllowed = createHostAllowlist(config.allowedHosts);
  const originAllowed = createOriginAllowlist(config.allowedOrigins);
  // With OAuth, a browser client must read the challenge.
  const exposedHeaders = config.oauth === undefined ? CORS_EXPOSED_HEADERS : `${CORS_EXPOSED_HEADERS}, www-authenticate`;

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!isProbeRoute(request.routeOptions.url) && !hostAllowed(request.host)) {
      // 421 Misdirected Request: this server does not answer for that name.
      return refuse(reply, 421, new HyphaeError('FORBIDDEN', 'host not allowed'));
    }
    const origin = request.headers.origin;
    if (origin === undefined) return undefined;
    // A same-origin request needs no CORS answer; its host already passed the allowlist above.
    if (isSameOrigin(origin, request.host)) return undefined;
    if (!originAllowed(origin)) return refuse(reply, 403, new HyphaeError('FORBIDDEN', 'origin not allowed'));
    reply.header('access-control-allow-origin', origin);
    reply.header('vary', 'Origin');
    reply.header('access-control-expose-headers', exposedHeaders);
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
      return reply
        .code(204)
        .header('access-control-allow-methods', CORS_ALLOWED_METHODS)
        .header('access-control-allow-headers', CORS_ALLOWED_HEADERS)
        .header('access-control-max-age', String(CORS_MAX_AGE_SECONDS))
        .send();
    }
    return undefined;
  });

  app.addHook('onSend', async (_request, reply, payload) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
    return payload;
  });
}
