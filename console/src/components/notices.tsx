/** How the console says that something failed, is loading or was done: announced to screen readers. */
import type { ComponentChildren, JSX } from 'preact';
import type { ApiError } from '../api/client.js';

export function ErrorNotice({ error, what }: { readonly error: ApiError | undefined; readonly what: string }): JSX.Element | null {
  if (error === undefined) return null;
  const reason =
    error.code === 'FORBIDDEN'
      ? 'your key is not allowed to do this'
      : error.code === 'UNAUTHENTICATED'
        ? 'your key was refused (revoked?); sign in again'
        : error.message;
  return (
    <p class="notice notice-error" role="alert">
      {what} failed: {reason} <span class="code">({error.code})</span>
    </p>
  );
}

export function Loading({ when }: { readonly when: boolean }): JSX.Element | null {
  return when ? (
    <p class="notice" role="status">
      Loading…
    </p>
  ) : null;
}

export function Done({ children }: { readonly children: ComponentChildren }): JSX.Element {
  return (
    <p class="notice notice-done" role="status">
      {children}
    </p>
  );
}
