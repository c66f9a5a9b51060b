/**
 * Sign in with an API key (checked against GET /v1/me before the console opens) or, when the
 * server offers it, through the identity provider that issues its access tokens.
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { createApiClient, type Credential } from '../api/client.js';
import type { Identity } from '../api/wire.js';
import { asApiError } from '../components/use-load.js';
import { ErrorNotice } from '../components/notices.js';
import type { ApiError } from '../api/client.js';
import type { ConsoleSignInDocument } from '../api/wire.js';
import { fetchSignInDocument, startSignIn } from '../oauth-sign-in.js';

export interface SignInProps {
  onSignedIn(credential: Credential, identity: Identity): void;
  readonly notice?: string;
}

function ProviderSignIn({ document }: { readonly document: ConsoleSignInDocument }): JSX.Element {
  const [leaving, setLeaving] = useState(false);
  return (
    <section aria-labelledby="provider-heading">
      <h2 id="provider-heading">Or with your organisation’s sign-in</h2>
      <button
        type="button"
        disabled={leaving}
        onClick={() => {
          setLeaving(true);
          void startSignIn(document).catch(() => setLeaving(false));
        }}
      >
        Sign in with {new URL(document.issuer).host}
      </button>
      <p class="help">You are sent to the identity provider and back; the console then acts with the scopes it granted you.</p>
    </section>
  );
}

export function SignIn({ onSignedIn, notice }: SignInProps): JSX.Element {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [provider, setProvider] = useState<ConsoleSignInDocument | undefined>(undefined);
  useEffect(() => {
    void fetchSignInDocument().then(setProvider);
  }, []);

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    const trimmed = key.trim();
    if (trimmed === '') return;
    setBusy(true);
    setError(undefined);
    try {
      const credential: Credential = { kind: 'key', secret: trimmed };
      const identity = await createApiClient(credential).get<Identity>('/v1/me');
      onSignedIn(credential, identity);
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
      {provider === undefined ? null : <ProviderSignIn document={provider} />}
    </main>
  );
}
