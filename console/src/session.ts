/**
 * The signed-in key lives in this tab's sessionStorage only: never in a cookie, never in
 * localStorage, gone when the tab closes; other origins' scripts cannot read it.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ApiClient } from './api/client.js';
import type { Identity, Role } from './api/wire.js';

const STORAGE_KEY = 'hyphae.console.key';

export function storedKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export function rememberKey(key: string): void {
  try {
    sessionStorage.setItem(STORAGE_KEY, key);
  } catch {
    // Storage refused (private mode quotas): the key then lives in memory for this page only.
  }
}

export function forgetKey(): void {
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
