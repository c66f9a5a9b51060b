/** The console: sign-in until a key is accepted, then a header, navigation and the page the URL names. */
import type { JSX } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { createApiClient } from './api/client.js';
import type { Identity } from './api/wire.js';
import { asApiError } from './components/use-load.js';
import { AdminPage } from './pages/admin.js';
import { CellPage } from './pages/cell.js';
import { GossipPage } from './pages/gossip.js';
import { InboxPage } from './pages/inbox.js';
import { MemoriesPage } from './pages/memories.js';
import { SignIn } from './pages/sign-in.js';
import { href, useRoute, type Route } from './router.js';
import { forgetKey, hasRole, rememberKey, SessionContext, storedKey, useSession, type Session } from './session.js';

const TITLES: Readonly<Record<Route['page'], string>> = {
  memories: 'Memories',
  cell: 'Cell',
  gossip: 'Gossip',
  inbox: 'Inbox',
  admin: 'Admin',
  'not-found': 'Not found',
};

function Page({ route }: { readonly route: Route }): JSX.Element {
  const { identity } = useSession();
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
      return hasRole(identity, 'admin') ? (
        <AdminPage />
      ) : (
        <div class="page">
          <h1>Admin</h1>
          <p role="alert">This needs an admin key; yours is {identity.roles.join(', ')}.</p>
        </div>
      );
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
    ['gossip', '/gossip', 'Gossip'],
    ['inbox', '/inbox', 'Inbox'],
  ];
  if (hasRole(identity, 'admin')) links.push(['admin', '/admin', 'Admin']);
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
                <a href={href(path)} aria-current={route.page === page || (page === 'memories' && route.page === 'cell') ? 'page' : undefined}>
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

export function App(): JSX.Element {
  const route = useRoute();
  const [signedIn, setSignedIn] = useState<{ key: string; identity: Identity } | undefined>(undefined);
  const [restoring, setRestoring] = useState(() => storedKey() !== null);
  const [notice, setNotice] = useState<string | undefined>(undefined);

  useEffect(() => {
    const key = storedKey();
    if (key === null) return;
    createApiClient(key)
      .get<Identity>('/v1/me')
      .then(
        (identity) => setSignedIn({ key, identity }),
        (error: unknown) => {
          forgetKey();
          setNotice(`Your stored key was refused (${asApiError(error).code}); sign in again.`);
        },
      )
      .finally(() => setRestoring(false));
  }, []);

  const session = useMemo<Session | null>(() => {
    if (signedIn === undefined) return null;
    return {
      api: createApiClient(signedIn.key),
      identity: signedIn.identity,
      signOut() {
        forgetKey();
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
    return (
      <SignIn
        notice={notice}
        onSignedIn={(key, identity) => {
          rememberKey(key);
          setNotice(undefined);
          setSignedIn({ key, identity });
        }}
      />
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <Shell route={route} />
    </SessionContext.Provider>
  );
}
