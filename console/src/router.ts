/** Hash routes, so every page is a plain static file plus a fragment: `#/memories`, `#/cells/<id>`, … */
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { readonly page: 'memories'; readonly params: URLSearchParams }
  | { readonly page: 'cell'; readonly id: string }
  | { readonly page: 'gossip' }
  | { readonly page: 'inbox'; readonly agent: string | undefined }
  | { readonly page: 'admin' }
  | { readonly page: 'quality' }
  | { readonly page: 'sources'; readonly params: URLSearchParams }
  | { readonly page: 'source'; readonly id: string; readonly params: URLSearchParams }
  | { readonly page: 'erasures' }
  | { readonly page: 'not-found'; readonly path: string };

export function parseRoute(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#/, '').split('?', 2);
  const parts = path.split('/').filter((part) => part !== '').map((part) => decodeURIComponent(part));
  const [first, second] = parts;
  if (first === undefined || first === 'memories') return { page: 'memories', params: new URLSearchParams(search) };
  if (first === 'cells' && second !== undefined && parts.length === 2) return { page: 'cell', id: second };
  if (first === 'gossip' && parts.length === 1) return { page: 'gossip' };
  if (first === 'inbox' && parts.length <= 2) return { page: 'inbox', agent: second };
  if (first === 'admin' && parts.length === 1) return { page: 'admin' };
  if (first === 'quality' && parts.length === 1) return { page: 'quality' };
  if (first === 'sources' && parts.length === 1) return { page: 'sources', params: new URLSearchParams(search) };
  if (first === 'erasures' && parts.length === 1) return { page: 'erasures' };
  if (first === 'sources' && second !== undefined && parts.length === 2) return { page: 'source', id: second, params: new URLSearchParams(search) };
  return { page: 'not-found', path };
}

export function href(path: string, params?: Readonly<Record<string, string | undefined>>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params ?? {})) if (value !== undefined && value !== '') query.set(name, value);
  const text = query.toString();
  return `#${path}${text === '' ? '' : `?${text}`}`;
}

export function cellHref(id: string): string {
  return href(`/cells/${encodeURIComponent(id)}`);
}

export function navigate(target: string): void {
  window.location.hash = target.replace(/^#/, '');
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const update = (): void => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
