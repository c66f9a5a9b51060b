/** Sign in with an API key: checked against GET /v1/me before the console opens. */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { createApiClient } from '../api/client.js';
import type { Identity } from '../api/wire.js';
import { asApiError } from '../components/use-load.js';
import { ErrorNotice } from '../components/notices.js';
import type { ApiError } from '../api/client.js';

export interface SignInProps {
  onSignedIn(key: string, identity: Identity): void;
  readonly notice?: string;
}

export function SignIn({ onSignedIn, notice }: SignInProps): JSX.Element {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    const trimmed = key.trim();
    if (trimmed === '') return;
    setBusy(true);
    setError(undefined);
    try {
      const identity = await createApiClient(trimmed).get<Identity>('/v1/me');
      onSignedIn(trimmed, identity);
    } catch (failure) {
      setError(asApiError(failure));
      setBusy(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <h1>Hyphae console</h1>
      <p>See what your agents remember and watch the gossip. The console can do exactly what its key can do.</p>
      {notice === undefined ? null : (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <form onSubmit={(event) => void submit(event)} aria-describedby="key-help">
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
        />
        <p id="key-help" class="help">
          A key printed by the first <code>hyphae serve</code> or by <code>hyphae keys create</code>. It stays in this tab only
          (sessionStorage) and is sent as <code>x-hyphae-key</code> to this server alone.
        </p>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <ErrorNotice error={error} what="Sign-in" />
    </main>
  );
}
