/**
 * `GET /console/…`: the web console's static files, with the console's CSP. The app-wide security
 * hooks (Host allowlist, Origin rule, headers) run first; this context's onSend runs after theirs
 * and replaces the API's `default-src 'none'` by the console's policy. No key is needed to load
 * the files: they hold no data, and every call the page makes is an authenticated /v1 request.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleBundle, ConsoleFile } from './console-bundle.js';
import { CONSOLE_PATH, consoleCsp } from './console-policy.js';
import { registerConsoleSignIn, tokenEndpointOrigin, type ConsoleSignIn } from './console-sign-in.js';

const NOT_BUILT = 'The Hyphae console is not built in this installation: with the dev dependencies installed, run `npm run build:console` (`npm start` does it) and restart; `npm run build` puts it in dist/.\n';

function acceptsGzip(request: FastifyRequest): boolean {
  const accepted = request.headers['accept-encoding'];
  return typeof accepted === 'string' && /\bgzip\b/.test(accepted);
}

/** Content-hashed assets never change; the page itself is revalidated so a new bundle is picked up. */
function cachePolicy(request: FastifyRequest, reply: FastifyReply): string {
  return reply.statusCode === 200 && request.url.startsWith(`${CONSOLE_PATH}/assets/`) ? 'public, max-age=31536000, immutable' : 'no-cache';
}

function sendFile(request: FastifyRequest, reply: FastifyReply, file: ConsoleFile): FastifyReply {
  reply.header('content-type', file.contentType).header('vary', 'Accept-Encoding');
  if (acceptsGzip(request)) return reply.header('content-encoding', 'gzip').send(file.gzip);
  return reply.send(file.body);
}

function notFound(reply: FastifyReply, path: string): FastifyReply {
  return reply.code(404).send({ error: { code: 'NOT_FOUND', message: `no console file ${path}` } });
}

/**
 * Mounts the console; with no bundle, /console says how to build it (503) instead of failing
 * start-up. `signIn`: the identity provider the console may sign in through, besides keys.
 */
export function registerConsoleRoutes(app: FastifyInstance, bundle: ConsoleBundle | undefined, signIn?: ConsoleSignIn): void {
  void app.register(async (scope) => {
    // Runs after the app-wide onSend, so these replace the API's CSP and its `no-store`.
    scope.addHook('onSend', async (request, reply, payload) => {
      reply.header('content-security-policy', consoleCsp(await tokenEndpointOrigin(signIn)));
      reply.header('cache-control', cachePolicy(request, reply));
      return payload;
    });
    scope.get(CONSOLE_PATH, async (_request, reply) => reply.redirect(`${CONSOLE_PATH}/`, 308));
    registerConsoleSignIn(scope, signIn);
    scope.get(`${CONSOLE_PATH}/*`, async (request, reply) => {
      if (bundle === undefined) return reply.code(503).type('text/plain; charset=utf-8').send(NOT_BUILT);
      const path = (request.params as { '*': string })['*'];
      const file = bundle.get(path === '' ? 'index.html' : path);
      return file === undefined ? notFound(reply, path) : sendFile(request, reply, file);
    });
  });
}
