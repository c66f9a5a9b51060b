/**
 * RFC 7662 token introspection for opaque access tokens: the issuer's introspection endpoint (from
 * its metadata) is asked with this server's client credentials, and its answer kept for a short
 * while — keyed by the token's SHA-256, so the cache holds no token — to spare the issuer a call
 * per request. An answer is then held to the same rules as a JWT's claims.
 */
import { createHash } from 'node:crypto';
import { UnavailableError } from '../../core/errors.js';
import type { OAuthIntrospectionClient } from '../../core/oauth-config.js';
import { TtlCache } from '../ttl-cache.js';
import { DEFAULT_FETCH_TIMEOUT_MS } from './issuer-metadata.js';
import type { IssuerMetadataSource } from './issuer-metadata-source.js';
import { InvalidTokenError } from './oauth-errors.js';
import { CLOCK_SKEW_SECONDS, refuseSenderConstrained, type VerifiedClaims } from './token-claim-rules.js';

export const INTROSPECTION_CACHE_MS = 30_000;
const INTROSPECTION_CACHE_ENTRIES = 10_000;
const MAX_RESPONSE_CHARS = 256 * 1024;

export interface TokenIntrospectorOptions {
  readonly client: OAuthIntrospectionClient;
  readonly issuer: IssuerMetadataSource;
  readonly cacheMs?: number;
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
  readonly now?: () => number;
}

/** The introspection answer as the issuer gave it; `active` says whether the token may be used. */
export type IntrospectionAnswer = Readonly<Record<string, unknown>> & { readonly active: boolean };

/** An answer and until when it is used (ms since the epoch): the cache period, never past the token's `exp`. */
export interface Introspection {
  readonly answer: IntrospectionAnswer;
  readonly until: number;
}

export class TokenIntrospector {
  private readonly answers: TtlCache<Introspection>;

  constructor(private readonly options: TokenIntrospectorOptions) {
    this.answers = new TtlCache(INTROSPECTION_CACHE_ENTRIES, options.cacheMs ?? INTROSPECTION_CACHE_MS, options.now);
  }

  async introspect(token: string): Promise<Introspection> {
    const hash = createHash('sha256').update(token, 'utf8').digest('hex');
    const now = (this.options.now ?? Date.now)();
    const cached = this.answers.get(hash);
    if (cached !== undefined && cached.until > now) return cached;
    const answer = await this.ask(token);
    // Never kept past the token's own expiry; a token without one lives for the cache period, then is asked about again.
    const exp = typeof answer.exp === 'number' ? answer.exp * 1000 : Number.POSITIVE_INFINITY;
    const introspection = { answer, until: Math.min(exp, now + (this.options.cacheMs ?? INTROSPECTION_CACHE_MS)) };
    this.answers.set(hash, introspection);
    return introspection;
  }

  private async ask(token: string): Promise<IntrospectionAnswer> {
    const metadata = await this.options.issuer.get();
    const endpoint = metadata.introspectionEndpoint;
    if (endpoint === undefined) throw new UnavailableError('the authorization server advertises no introspection_endpoint');
    const { clientId, clientSecret } = this.options.client;
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(endpoint, {
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/x-www-form-urlencoded',
          // RFC 6749 §2.3.1: each part form-encoded before Basic.
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`,
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        redirect: 'error',
        signal: AbortSignal.timeout(this.options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS),
      });
    } catch (error) {
      throw new UnavailableError('the introspection endpoint could not be reached', { cause: error, retryAfterSeconds: 10 });
    }
    const text = await response.text();
    if (!response.ok) throw new UnavailableError(`the introspection endpoint answered ${response.status}`, { retryAfterSeconds: 10 });
    return parseAnswer(text);
  }
}

function parseAnswer(text: string): IntrospectionAnswer {
  let body: unknown;
  try {
    body = text.length > MAX_RESPONSE_CHARS ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body) || typeof (body as { active?: unknown }).active !== 'boolean') {
    throw new UnavailableError('the introspection endpoint answered no RFC 7662 response');
  }
  return body as IntrospectionAnswer;
}

export interface IntrospectionRules {
  readonly issuer: string;
  readonly audiences: readonly string[];
  readonly now: number;
}

/** An active answer for this server, from this issuer, unexpired and for use as a bearer access token. */
export function acceptIntrospectedToken(answer: IntrospectionAnswer, rules: IntrospectionRules): VerifiedClaims {
  if (!answer.active) throw new InvalidTokenError('not active');
  if (answer.iss !== undefined && answer.iss !== rules.issuer) throw new InvalidTokenError('issued by another issuer (iss)');
  const audiences = typeof answer.aud === 'string' ? [answer.aud] : Array.isArray(answer.aud) ? answer.aud : [];
  if (!audiences.some((aud) => rules.audiences.includes(aud as string))) throw new InvalidTokenError('not issued for this server (aud)');
  const nowSeconds = rules.now / 1000;
  if (typeof answer.exp === 'number' && answer.exp <= nowSeconds - CLOCK_SKEW_SECONDS) throw new InvalidTokenError('expired');
  if (typeof answer.nbf === 'number' && answer.nbf > nowSeconds + CLOCK_SKEW_SECONDS) throw new InvalidTokenError('not valid yet (nbf)');
  const tokenType = typeof answer.token_type === 'string' ? answer.token_type.toLowerCase() : 'bearer';
  if (tokenType !== 'bearer' && tokenType !== 'access_token') throw new InvalidTokenError('not an access token');
  return refuseSenderConstrained(answer);
}
