/**
 * A real, certified OAuth 2.1 / OpenID Connect authorization server for tests: `oidc-provider` on
 * a free loopback port, started by the test itself. It issues JWT access tokens for any resource
 * indicator (RFC 8707) — opaque ones for the resources listed as opaque, for introspection —
 * requires PKCE of public clients, accepts dynamic client registration, introspects (RFC 7662)
 * and revokes. Sign-in and consent are automated: whoever `signInAs` names is logged in and every
 * requested scope is granted, so a client's authorization request ends at its redirect URI.
 *
 * Beside the real flow it mints tokens directly with the server's signing key (or deliberately
 * wrong keys and algorithms) for the cases a well-behaved server never produces.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { errors, Provider, type Adapter, type AdapterPayload, type Configuration } from 'oidc-provider';

export const ISSUER_SIGNING_ALG = 'RS256';
/** Every scope the server grants for any resource; `other:read` is none of Hyphae's. */
export const RESOURCE_SCOPES = 'hyphae:read hyphae:write hyphae:admin other:read';

export interface SignedInUser {
  readonly sub: string;
  /** Extra claims of the user's access tokens (e.g. `hyphae_tenant`). */
  readonly claims: Readonly<Record<string, unknown>>;
}

export interface AuthorizationServerOptions {
  /** Resource indicators whose access tokens are opaque (introspection) instead of JWTs. */
  readonly opaqueResources?: readonly string[];
  readonly accessTokenTtlSeconds?: number;
  readonly signInAs?: SignedInUser;
}

export interface ObtainedToken {
  readonly accessToken: string;
  readonly scope: string | undefined;
  readonly expiresIn: number;
}

export interface MintOptions {
  /** `issuer` (default): the server's own key; `foreign`: a key it never published. */
  readonly signer?: 'issuer' | 'foreign';
  /** The header's `kid`; default: the signer's own. */
  readonly kid?: string;
  /** The header's `typ`; default `at+jwt` (RFC 9068), `null` leaves it out (as an ID token or a lax provider's token). */
  readonly typ?: string | null;
}

export interface AuthorizationServer {
  readonly issuer: string;
  readonly port: number;
  /** A public client registered at start (PKCE, redirect to `redirectUri`). */
  readonly publicClient: { readonly clientId: string; readonly redirectUri: string };
  /** A confidential client allowed to introspect. */
  readonly introspectionClient: { readonly clientId: string; readonly clientSecret: string };
  /** Who the automated sign-in logs in as; change it between flows. */
  signInAs: SignedInUser;
  /** When set, the automated consent grants only these of the requested scopes (the user unticks the rest). */
  consentLimit: readonly string[] | undefined;
  /** How many times the JWKS has been fetched. */
  readonly jwksFetches: number;
  /** How many introspection requests it has answered. */
  readonly introspections: number;
  /** When true, its introspection answers leave out `exp` (as some providers' do). */
  introspectionOmitsExp: boolean;
  /** Runs the authorization code flow with PKCE as the public client and returns its access token. */
  obtainAccessToken(request: { readonly resource: string; readonly scope: string }): Promise<ObtainedToken>;
  /** Follows an authorization URL through sign-in and consent; returns the URL the client is sent back to (with `code`). */
  completeAuthorization(authorizationUrl: URL | string): Promise<URL>;
  /** Revokes a token at the revocation endpoint (as the public client that obtained it). */
  revoke(token: string): Promise<void>;
  /** The claims a genuine access token for `audience` would carry (one minute left), with `overrides` applied. */
  accessTokenClaims(audience: string, overrides?: Readonly<Record<string, unknown>>): JWTPayload;
  /** Signs claims as a JWT access token. */
  mint(claims: JWTPayload, options?: MintOptions): Promise<string>;
  /** `alg: none`, no signature. */
  mintUnsigned(claims: JWTPayload): string;
  /** HS256 with the issuer's public key (PEM) as the HMAC secret: the algorithm-confusion forgery. */
  mintHmacWithPublicKey(claims: JWTPayload): Promise<string>;
  /** Publishes another signing key in the JWKS (a key rotation); the function returned signs with it. */
  rotateKey(): Promise<(claims: JWTPayload) => Promise<string>>;
  close(): Promise<void>;
}

interface SigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
  readonly publicKey: CryptoKey;
}

async function newSigningKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(ISSUER_SIGNING_ALG, { extractable: true });
  const kid = randomBytes(8).toString('hex');
  const meta = { kid, alg: ISSUER_SIGNING_ALG, use: 'sig' };
  return { kid, privateKey, publicKey, privateJwk: { ...(await exportJWK(privateKey)), ...meta }, publicJwk: { ...(await exportJWK(publicKey)), ...meta } };
}

/** oidc-provider's storage, in memory and per server (its built-in one warns on every start). */
function memoryAdapter(): new (name: string) => Adapter {
  const rows = new Map<string, AdapterPayload>();
  return class MemoryAdapter implements Adapter {
    constructor(private readonly name: string) {}
    private key(id: string): string {
      return `${this.name}:${id}`;
    }
    async upsert(id: string, payload: AdapterPayload): Promise<void> {
      rows.set(this.key(id), payload);
    }
    async find(id: string): Promise<AdapterPayload | undefined> {
      return rows.get(this.key(id));
    }
    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return [...rows.values()].find((row) => row.userCode === userCode);
    }
    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return [...rows.values()].find((row) => row.uid === uid);
    }
    async consume(id: string): Promise<void> {
      const row = rows.get(this.key(id));
      if (row !== undefined) row.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string): Promise<void> {
      rows.delete(this.key(id));
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      for (const [key, row] of rows) if (row.grantId === grantId) rows.delete(key);
    }
  };
}

function base64url(bytes: Buffer): string {
  return bytes.toString('base64url');
}

/** A cookie jar just large enough for one browser walking the sign-in redirects. */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';', 1)[0] ?? '';
      const eq = pair.indexOf('=');
      if (eq > 0) this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

export async function startAuthorizationServer(options: AuthorizationServerOptions = {}): Promise<AuthorizationServer> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;
  const issuerKey = await newSigningKey();
  const foreignKey = await newSigningKey();
  const published: JWK[] = [issuerKey.publicJwk];
  const publicClient = { clientId: 'hyphae-test-client', redirectUri: 'http://127.0.0.1/callback' };
  const introspectionClient = { clientId: 'hyphae-resource-server', clientSecret: randomBytes(24).toString('base64url') };
  const opaque = new Set(options.opaqueResources ?? []);
  const users = new Map<string, SignedInUser>();

  const configuration: Configuration = {
    adapter: memoryAdapter(),
    jwks: { keys: [issuerKey.privateJwk] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    clients: [
      {
        client_id: publicClient.clientId,
        token_endpoint_auth_method: 'none',
        redirect_uris: [publicClient.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
      {
        client_id: introspectionClient.clientId,
        client_secret: introspectionClient.clientSecret,
        token_endpoint_auth_method: 'client_secret_basic',
        redirect_uris: [],
        grant_types: [],
        response_types: [],
      },
    ],
    async findAccount(_ctx, sub) {
      return { accountId: sub, claims: () => ({ sub }) };
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AuthorizationCode: 60, AccessToken: options.accessTokenTtlSeconds ?? 300 },
    // Advertised and registrable (dynamic registration checks a client's scope against this list).
    scopes: ['openid', 'offline_access', ...RESOURCE_SCOPES.split(' ')],
    clientBasedCORS: () => true,
    async extraTokenClaims(_ctx, token) {
      return token.accountId === undefined ? undefined : { ...users.get(token.accountId)?.claims };
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      introspection: { enabled: true, allowedPolicy: async (_ctx, client) => client.clientId === introspectionClient.clientId },
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => client.clientId === token.clientId },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: () => true,
        getResourceServerInfo(_ctx, resource) {
          if (!/^https?:\/\//.test(resource)) throw new errors.InvalidTarget();
          return {
            scope: RESOURCE_SCOPES,
            audience: resource,
            accessTokenTTL: options.accessTokenTtlSeconds ?? 300,
            accessTokenFormat: opaque.has(resource) ? 'opaque' : 'jwt',
            jwt: { sign: { alg: ISSUER_SIGNING_ALG } },
          };
        },
      },
    },
  };
  const provider = new Provider(issuer, configuration);
  let introspections = 0;
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.path !== '/token/introspection') return;
    introspections += 1;
    const body = ctx.body as Record<string, unknown> | undefined;
    if (harness.introspectionOmitsExp && body !== undefined) delete body.exp;
  });
  const handleProvider = provider.callback();

  async function interact(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const interaction = await provider.interactionDetails(req, res);
    if (interaction.prompt.name === 'login') {
      users.set(harness.signInAs.sub, harness.signInAs);
      await provider.interactionFinished(req, res, { login: { accountId: harness.signInAs.sub } }, { mergeWithLastSubmission: false });
      return;
    }
    const accountId = interaction.session?.accountId ?? harness.signInAs.sub;
    const grant =
      (interaction.grantId === undefined ? undefined : await provider.Grant.find(interaction.grantId)) ??
      new provider.Grant({ accountId, clientId: String(interaction.params.client_id) });
    const details = interaction.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (details.missingOIDCScope !== undefined) grant.addOIDCScope(details.missingOIDCScope.join(' '));
    if (details.missingOIDCClaims !== undefined) grant.addOIDCClaims(details.missingOIDCClaims);
    const consented = (scope: string): boolean => harness.consentLimit === undefined || harness.consentLimit.includes(scope);
    for (const [resource, scopes] of Object.entries(details.missingResourceScopes ?? {})) {
      grant.addResourceScope(resource, scopes.filter(consented).join(' '));
      grant.rejectResourceScope(resource, scopes.filter((scope) => !consented(scope)).join(' '));
    }
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  let jwksFetches = 0;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', issuer).pathname;
    if (path === '/jwks') {
      jwksFetches += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: published }));
      return;
    }
    if (path.startsWith('/interaction/')) {
      interact(req, res).catch((error: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
      });
      return;
    }
    void handleProvider(req, res);
  });

  async function completeAuthorization(authorizationUrl: URL | string): Promise<URL> {
    const jar = new CookieJar();
    let url = new URL(authorizationUrl);
    for (let hop = 0; hop < 10; hop += 1) {
      if (url.origin !== issuer) return url;
      const response = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
      jar.take(response);
      const location = response.headers.get('location');
      if (location === null) throw new Error(`authorization stopped at ${url.pathname} with ${response.status}: ${await response.text()}`);
      await response.body?.cancel();
      url = new URL(location, url);
    }
    throw new Error('authorization did not return to the client within 10 redirects');
  }

  const harness: AuthorizationServer = {
    issuer,
    port,
    publicClient,
    introspectionClient,
    signInAs: options.signInAs ?? { sub: 'alice', claims: { hyphae_tenant: 'acme' } },
    consentLimit: undefined,
    get jwksFetches() {
      return jwksFetches;
    },
    get introspections() {
      return introspections;
    },
    introspectionOmitsExp: false,
    completeAuthorization,
    async obtainAccessToken({ resource, scope }) {
      const verifier = base64url(randomBytes(32));
      const authorization = new URL('/auth', issuer);
      authorization.search = new URLSearchParams({
        client_id: publicClient.clientId,
        response_type: 'code',
        redirect_uri: publicClient.redirectUri,
        scope,
        resource,
        state: base64url(randomBytes(8)),
        code_challenge: base64url(createHash('sha256').update(verifier).digest()),
        code_challenge_method: 'S256',
      }).toString();
      const back = await completeAuthorization(authorization);
      const code = back.searchParams.get('code');
      if (code === null) throw new Error(`no authorization code: ${back.search}`);
      const response = await fetch(new URL('/token', issuer), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: publicClient.redirectUri,
          client_id: publicClient.clientId,
          code_verifier: verifier,
          resource,
        }).toString(),
      });
      const body = (await response.json()) as { access_token?: string; scope?: string; expires_in?: number; error?: string };
      if (!response.ok || body.access_token === undefined) throw new Error(`token request failed: ${JSON.stringify(body)}`);
      return { accessToken: body.access_token, scope: body.scope, expiresIn: body.expires_in ?? 0 };
    },
    async revoke(token) {
      const response = await fetch(new URL('/token/revocation', issuer), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, client_id: publicClient.clientId }).toString(),
      });
      if (!response.ok) throw new Error(`revocation failed: ${response.status} ${await response.text()}`);
    },
    accessTokenClaims(audience, overrides = {}) {
      const now = Math.floor(Date.now() / 1000);
      return {
        iss: issuer,
        aud: audience,
        sub: harness.signInAs.sub,
        client_id: publicClient.clientId,
        scope: 'hyphae:read hyphae:write',
        iat: now,
        exp: now + 60,
        jti: base64url(randomBytes(12)),
        ...harness.signInAs.claims,
        ...overrides,
      };
    },
    async mint(claims, mintOptions = {}) {
      const key = mintOptions.signer === 'foreign' ? foreignKey : issuerKey;
      return new SignJWT(claims)
        .setProtectedHeader({
          alg: ISSUER_SIGNING_ALG,
          ...(mintOptions.typ === null ? {} : { typ: mintOptions.typ ?? 'at+jwt' }),
          kid: mintOptions.kid ?? key.kid,
        })
        .sign(key.privateKey);
    },
    mintUnsigned(claims) {
      return new UnsecuredJWT(claims).encode();
    },
    async mintHmacWithPublicKey(claims) {
      const pem = await exportSPKI(issuerKey.publicKey);
      return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: issuerKey.kid }).sign(new TextEncoder().encode(pem));
    },
    async rotateKey() {
      const rotated = await newSigningKey();
      published.push(rotated.publicJwk);
      return (claims) => new SignJWT(claims).setProtectedHeader({ alg: ISSUER_SIGNING_ALG, typ: 'at+jwt', kid: rotated.kid }).sign(rotated.privateKey);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
  return harness;
}
