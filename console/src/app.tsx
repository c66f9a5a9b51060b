/** The console: sign-in until a key or an access token is accepted, then a header, navigation and the page the URL names. */
import type { JSX } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { createApiClient, type Credential } from './api/client.js';
import type { Identity } from './api/wire.js';
import { asApiError } from './components/use-load.js';
import { AdminPage } from './pages/admin.js';
import { CellPage } from './pages/cell.js';
import { GossipPage } from './pages/gossip.js';
import { InboxPage } from './pages/inbox.js';
import { MemoriesPage } from './pages/memories.js';
import { SignIn } from './pages/sign-in.js';
import { SourcePage } from './pages/source.js';
import { SourcesPage } from './pages/sources.js';
import { QualityPage } from './pages/quality.js';
import { ErasuresPage } from './pages/erasures.js';
import { href, useRoute, type Route } from './router.js';
import { finishSignIn, isSignInReturn } from './oauth-sign-in.js';
import { forgetCredential, hasRole, rememberCredential, SessionContext, storedCredential, useSession, type Session } from './session.js';

const TITLES: Readonly<Record<Route['page'], string>> = {
  memories: 'Memories',
  cell: 'Cell',
  gossip: 'Gossip',
  inbox: 'Inbox',
  admin: 'Admin',
  quality: 'Quality',
  sources: 'Sources',
  source: 'Source',
  erasures: 'Erasures',
  'not-found': 'Not found',
};

/** A page for admin keys; any other key is told what it needs. */
function AdminOnly({ title, children }: { readonly title: string; readonly children: JSX.Element }): JSX.Element {
  const { identity } = useSession();
  if (hasRole(identity, 'admin')) return children;
  return (
    <div class="page">
      <h1>{title}</h1>
      <p role="alert">This needs an admin key; yours is {identity.roles.join(', ')}.</p>
    </div>
  );
}

function Page({ route }: { readonly route: Route }): JSX.Element {
  switch (route.page) {
    case 'memories':
      return <MemoriesPage params={route.params} />;
    case 'cell':
      return <CellPage id={route.id} />;
    case 'gossip':
      return <GossipPage />;
    case 'inbox':
      return <InboxPage agent={route.agent} />;
    case 'admin':
      return (
        <AdminOnly title="Admin">
          <AdminPage />
        </AdminOnly>
      );
    case 'quality':
      return (
        <AdminOnly title="Quality">
          <QualityPage />
        </AdminOnly>
      );
    case 'erasures':
      return (
        <AdminOnly title="Erasures">
          <ErasuresPage />
        </AdminOnly>
      );
    case 'sources':
      return <SourcesPage params={route.params} />;
    case 'source':
      return <SourcePage id={route.id} params={route.params} />;
    case 'not-found':
      return (
        <div class="page">
          <h1>Not found</h1>
          <p>
            No page at “{route.path}”. <a href={href('/memories')}>Memories</a>
          </p>
        </div>
      );
  }
}

function Shell({ route }: { readonly route: Route }): JSX.Element {
  const { identity, signOut } = useSession();
  const links: [Route['page'], string, string][] = [
    ['memories', '/memories', 'Memories'],
    ['sources', '/sources', 'Sources'],
    ['gossip', '/gossip', 'Gossip'],
    ['inbox', '/inbox', 'Inbox'],
  ];
  if (hasRole(identity, 'admin')) links.push(['quality', '/quality', 'Quality'], ['admin', '/admin', 'Admin']);
  // The receipts are the tenant's: only a key scoped to every project reads them.
  if (hasRole(identity, 'admin') && identity.projects.includes('*')) links.push(['erasures', '/erasures', 'Erasures']);
  useEffect(() => {
    document.title = `${TITLES[route.page]} · Hyphae console`;
  }, [route.page]);
  return (
    <>
      <a href="#main" class="skip-link" onClick={(event) => {
        event.preventDefault();
        document.getElementById('main')?.focus();
      }}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Hyphae</span>
        <nav aria-label="Console">
          <ul>
            {links.map(([page, path, label]) => (
              <li key={page}>
                <a href={href(path)} aria-current={route.page === page || (page === 'memories' && route.page === 'cell') || (page === 'sources' && route.page === 'source') ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="identity" aria-label="Signed in as">
          {identity.agent} · {identity.tenant} · {identity.roles.join(', ')}
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Page route={route} />
      </main>
    </>
  );
}

/** The credential to open with: a provider's code being returned, else what this tab kept. */
async function resumedCredential(): Promise<{ credential: Credential; what: string } | undefined> {
  if (isSignInReturn()) return { credential: { kind: 'bearer', secret: await finishSignIn() }, what: 'access token' };
  const stored = storedCredential();
  return stored === null ? undefined : { credential: stored, what: stored.kind === 'key' ? 'stored key' : 'stored access token' };
}

export function App(): JSX.Element {
  const route = useRoute();
  const [signedIn, setSignedIn] = useState<{ credential: Credential; identity: Identity } | undefined>(undefined);
  const [restoring, setRestoring] = useState(() => isSignInReturn() || storedCredential() !== null);
  const [notice, setNotice] = useState<string | undefined>(undefined);

  const open = (credential: Credential, identity: Identity): void => {
    rememberCredential(credential);
    setNotice(undefined);
    setSignedIn({ credential, identity });
  };

  useEffect(() => {
    let what = 'sign-in';
    resumedCredential()
      .then(async (resumed) => {
        if (resumed === undefined) return;
        what = resumed.what;
        open(resumed.credential, await createApiClient(resumed.credential).get<Identity>('/v1/me'));
      })
      .catch((error: unknown) => {
        forgetCredential();
        setNotice(error instanceof Error && error.name === 'SignInError' ? `Sign-in failed: ${error.message}.` : `Your ${what} was refused (${asApiError(error).code}); sign in again.`);
      })
      .finally(() => setRestoring(false));
  }, []);

  const session = useMemo<Session | null>(() => {
    if (signedIn === undefined) return null;
    return {
      api: createApiClient(signedIn.credential),
      identity: signedIn.identity,
      signOut() {
        forgetCredential();
        setSignedIn(undefined);
        setNotice('Signed out.');
      },
    };
  }, [signedIn]);

  if (restoring) {
    return (
      <p class="notice" role="status">
        Signing in…
      </p>
    );
  }
  if (session === null) {
    return <SignIn notice={notice} onSignedIn={open} />;
  }
  return (
    <SessionContext.Provider value={session}>
      <Shell route={route} />
    </SessionContext.Provider>
  );
}
