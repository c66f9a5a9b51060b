/**
 * The signed-in credential (a key, or an access token) lives in this tab's sessionStorage only:
 * never in a cookie, never in localStorage, gone when the tab closes; other origins' scripts
 * cannot read it.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ApiClient, Credential } from './api/client.js';
import type { Identity, Role } from './api/wire.js';

const STORAGE_KEY = 'hyphae.console.credential';

export function storedCredential(): Credential | null {
  try {
    const stored = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as Partial<Credential> | null;
    return (stored?.kind === 'key' || stored?.kind === 'bearer') && typeof stored.secret === 'string' ? { kind: stored.kind, secret: stored.secret } : null;
  } catch {
    return null;
  }
}

export function rememberCredential(credential: Credential): void {
  try {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(credential));
  } catch {
    // Storage refused (private mode quotas): the credential then lives in memory for this page only.
  }
}

export function forgetCredential(): void {
  try {
    sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Nothing stored.
  }
}

export interface Session {
  readonly api: ApiClient;
  readonly identity: Identity;
  signOut(): void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (session === null) throw new Error('useSession outside a signed-in console');
  return session;
}

/** Mirrors the server's role rule (admin ⊇ writer ⊇ reader) to decide what to offer; the server still decides. */
export function hasRole(identity: Identity, role: Role): boolean {
  if (identity.roles.includes('admin')) return true;
  if (role === 'reader') return identity.roles.includes('writer') || identity.roles.includes('reader');
  return identity.roles.includes(role);
}
