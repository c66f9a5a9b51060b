/**
 * The official MCP SDK's OAuth client, as a host such as claude.ai runs it, with the browser step
 * automated: the SDK discovers the authorization server from the server's 401, registers itself
 * dynamically, sends the user to the authorization URL with PKCE; here that URL is walked through
 * the test authorization server's automated sign-in and consent, and the code it returns is kept
 * for `finishAuth`. Everything else is the SDK's own doing.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { AuthorizationServer } from '../support/authorization-server.js';

export const HOST_REDIRECT_URL = 'http://127.0.0.1/host-callback';

export class AutomatedOAuthClientProvider implements OAuthClientProvider {
  private registered: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier: string | undefined;
  /** The code of the last completed authorization, for `transport.finishAuth`. */
  authorizationCode: string | undefined;
  /** Every authorization URL the SDK sent the "user" to. */
  readonly authorizationUrls: URL[] = [];

  constructor(private readonly authorizationServer: AuthorizationServer) {}

  get redirectUrl(): string {
    return HOST_REDIRECT_URL;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Hyphae OAuth test host',
      redirect_uris: [HOST_REDIRECT_URL],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.registered;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.registered = information;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.authorizationUrls.push(authorizationUrl);
    const back = await this.authorizationServer.completeAuthorization(authorizationUrl);
    const code = back.searchParams.get('code');
    if (back.origin + back.pathname !== HOST_REDIRECT_URL || code === null) throw new Error(`authorization did not return a code: ${back.href}`);
    this.authorizationCode = code;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no PKCE code verifier was saved');
    return this.verifier;
  }
}
