/**
 * Sign-in through the identity provider (docs/console.md): the console is a public OAuth client —
 * authorization code with PKCE (S256), a `state` checked on return, the `resource` its token is
 * for (RFC 8707), and RFC 9207's `iss` checked when the provider sends it. What the round trip
 * needs across the redirect (state, verifier, endpoints) waits in sessionStorage and is removed on
 * return; the access token is the only thing kept, like a key. No refresh token is asked for: when
 * the token expires the console asks to sign in again.
 */
import type { ConsoleKeysOnly, ConsoleSignInDocument } from './api/wire.js';

export const SIGN_IN_DOCUMENT_PATH = '/console/oauth.json';
const PENDING_KEY = 'hyphae.console.oauth-pending';

interface PendingSignIn {
  readonly state: string;
  readonly verifier: string;
  readonly document: ConsoleSignInDocument;
}

/** A sign-in through the provider that did not end with a token; the message says why. */
export class SignInError extends Error {
  override readonly name = 'SignInError';
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomToken(bytes: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** The provider sign-in this server offers, or undefined (keys only, or the provider unreachable). */
export async function fetchSignInDocument(): Promise<ConsoleSignInDocument | undefined> {
  try {
    const response = await fetch(SIGN_IN_DOCUMENT_PATH, { credentials: 'omit', cache: 'no-store', headers: { accept: 'application/json' } });
    if (!response.ok) return undefined;
    const answer = (await response.json()) as ConsoleSignInDocument | ConsoleKeysOnly;
    return answer.enabled ? answer : undefined;
  } catch {
    return undefined;
  }
}

/** Leaves for the provider's sign-in page; it sends the browser back to the redirect URI with a code. */
export async function startSignIn(document: ConsoleSignInDocument): Promise<void> {
  const pending: PendingSignIn = { state: randomToken(16), verifier: randomToken(32), document };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(pending.verifier))));
  const url = new URL(document.authorization_endpoint);
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: document.client_id,
    redirect_uri: document.redirect_uri,
    scope: document.scope,
    resource: document.resource,
    state: pending.state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })) {
    url.searchParams.set(name, value);
  }
  location.assign(url.toString());
}

/** Whether this page load is the provider sending the browser back (a code or an error in the query). */
export function isSignInReturn(): boolean {
  const query = new URLSearchParams(location.search);
  return query.has('state') && (query.has('code') || query.has('error'));
}

function takePending(): PendingSignIn | undefined {
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  try {
    return raw === null ? undefined : (JSON.parse(raw) as PendingSignIn);
  } catch {
    return undefined;
  }
}

/** Trades the returned code for an access token; the query is cleared from the address bar either way. */
export async function finishSignIn(): Promise<string> {
  const query = new URLSearchParams(location.search);
  history.replaceState(null, '', `${location.pathname}#/memories`);
  const pending = takePending();
  if (pending === undefined || query.get('state') !== pending.state) throw new SignInError('this sign-in was not started here (state mismatch); sign in again');
  const error = query.get('error');
  if (error !== null) throw new SignInError(`the identity provider refused the sign-in (${error})`);
  const iss = query.get('iss');
  if (iss !== null && iss !== pending.document.issuer) throw new SignInError('the answer came from another identity provider than this server trusts');
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code: query.get('code') ?? '',
    redirect_uri: pending.document.redirect_uri,
    client_id: pending.document.client_id,
    code_verifier: pending.verifier,
    resource: pending.document.resource,
  });
  let response: Response;
  try {
    response = await fetch(pending.document.token_endpoint, { method: 'POST', body, credentials: 'omit', cache: 'no-store', headers: { accept: 'application/json' } });
  } catch {
    throw new SignInError('the identity provider’s token endpoint could not be reached');
  }
  const answer = (await response.json().catch(() => ({}))) as { access_token?: unknown; error?: unknown };
  if (!response.ok || typeof answer.access_token !== 'string') {
    throw new SignInError(`the identity provider issued no token (${typeof answer.error === 'string' ? answer.error : `HTTP ${response.status}`})`);
  }
  return answer.access_token;
}
