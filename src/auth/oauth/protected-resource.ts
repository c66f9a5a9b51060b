/**
 * This server as an OAuth protected resource (RFC 9728): the metadata documents clients discover
 * the authorization server from, and the `WWW-Authenticate` challenges (RFC 6750 §3) that point
 * them there on a 401 or name the missing scope on a 403.
 */
import type { OAuthConfig } from '../../core/oauth-config.js';
import { AGENT_SCOPES, SUPPORTED_SCOPES } from './hyphae-scopes.js';
import type { InsufficientScopeError, InvalidTokenError } from './oauth-errors.js';

export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** Each metadata document served: the root one for the whole server, and the path-suffixed one for `/mcp`. */
export const PROTECTED_RESOURCE_PATHS: readonly { readonly path: string; readonly resourcePath: string }[] = [
  { path: PROTECTED_RESOURCE_METADATA_PATH, resourcePath: '' },
  { path: `${PROTECTED_RESOURCE_METADATA_PATH}/mcp`, resourcePath: '/mcp' },
];

export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly scopes_supported: readonly string[];
  readonly bearer_methods_supported: readonly string[];
  readonly resource_name: string;
}

/** RFC 9728 §3.3: `resource` is exactly the URL the document's well-known path was built from. */
export function protectedResourceMetadata(config: Pick<OAuthConfig, 'resource' | 'issuer'>, resourcePath = ''): ProtectedResourceMetadata {
  return {
    resource: `${config.resource}${resourcePath}`,
    authorization_servers: [config.issuer],
    scopes_supported: SUPPORTED_SCOPES,
    bearer_methods_supported: ['header'],
    resource_name: 'Hyphae',
  };
}

export function resourceMetadataUrl(config: Pick<OAuthConfig, 'resource'>): string {
  return `${config.resource}${PROTECTED_RESOURCE_METADATA_PATH}`;
}

/**
 * The `WWW-Authenticate` value for a refused request: without a token (or with a bad one) it asks
 * for the agent scopes; for a token lacking a scope it names that scope.
 */
export function bearerChallenge(config: Pick<OAuthConfig, 'resource'>, refusal?: InvalidTokenError | InsufficientScopeError): string {
  const params: [string, string][] = [['resource_metadata', resourceMetadataUrl(config)]];
  if (refusal === undefined) {
    params.push(['scope', AGENT_SCOPES.join(' ')]);
  } else if (refusal.oauthError === 'invalid_token') {
    params.push(['error', 'invalid_token'], ['error_description', refusal.message], ['scope', AGENT_SCOPES.join(' ')]);
  } else {
    params.push(['error', 'insufficient_scope'], ['error_description', refusal.message], ['scope', refusal.requiredScopes.join(' ')]);
  }
  return `Bearer ${params.map(([name, value]) => `${name}="${quoted(value)}"`).join(', ')}`;
}

/** RFC 6750 §3 allows printable ASCII except `"` and `\` inside these values; anything else becomes `?`. */
function quoted(value: string): string {
  return value.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?');
}
