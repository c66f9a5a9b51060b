/**
 * Sign-in to the console through the identity provider that issues Hyphae's access tokens: the
 * console is a public OAuth client of that provider (authorization code with PKCE, redirect URI
 * `<public URL>/console/`). `GET /console/oauth.json` tells the page what it needs — the client
 * id, the scopes, the resource its token is for, and the provider's two endpoints, discovered
 * once from the issuer — or `{"enabled":false}` when the console signs in with keys only (a
 * 200: the page asks on every load, and a keys-only server is not missing anything).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ConsoleKeysOnly, ConsoleSignInDocument } from '../core/console-entities.js';
import { CONSOLE_PATH } from './console-policy.js';

export const CONSOLE_SIGN_IN_PATH = `${CONSOLE_PATH}/oauth.json`;

export interface ProviderEndpoints {
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
}

export interface ConsoleSignIn {
  readonly issuer: string;
  readonly clientId: string;
  readonly scope: string;
  /** This server's canonical URL: the resource the token is asked for, and the redirect URI's origin. */
  readonly resource: string;
  /** The provider's endpoints (discovered and kept by the caller); rejects while it cannot be reached. */
  endpoints(): Promise<ProviderEndpoints>;
}

/** The token endpoint's origin for the page's CSP; undefined when none is known (yet). */
export async function tokenEndpointOrigin(signIn: ConsoleSignIn | undefined): Promise<string | undefined> {
  if (signIn === undefined) return undefined;
  try {
    return new URL((await signIn.endpoints()).tokenEndpoint).origin;
  } catch {
    return undefined;
  }
}

function refuse(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply.code(status).send({ error: { code, message } });
}

export function registerConsoleSignIn(scope: FastifyInstance, signIn: ConsoleSignIn | undefined): void {
  scope.get(CONSOLE_SIGN_IN_PATH, async (_request, reply) => {
    if (signIn === undefined) return reply.send({ enabled: false } satisfies ConsoleKeysOnly);
    let endpoints: ProviderEndpoints;
    try {
      endpoints = await signIn.endpoints();
    } catch {
      return refuse(reply.header('retry-after', '10'), 503, 'UNAVAILABLE', 'the identity provider cannot be reached; sign in with a key or try again');
    }
    const document: ConsoleSignInDocument = {
      enabled: true,
      issuer: signIn.issuer,
      client_id: signIn.clientId,
      scope: signIn.scope,
      resource: signIn.resource,
      redirect_uri: `${signIn.resource}${CONSOLE_PATH}/`,
      authorization_endpoint: endpoints.authorizationEndpoint,
      token_endpoint: endpoints.tokenEndpoint,
    };
    return reply.send(document);
  });
}
