// The `deepdesk serve` token, as the page keeps it: taken from the link's `#token=` (or
// `?token=`) into this tab's sessionStorage and removed from the address bar. Only our
// origin (port included) can read it, unlike a cookie, which every server on 127.0.0.1
// receives; a reload keeps it, a new tab opened without the link does not have it.

const KEY = 'deepdesk.serveToken';

interface PageEnv {
  location: Pick<Location, 'pathname' | 'search' | 'hash'>;
  sessionStorage: Pick<Storage, 'getItem' | 'setItem'>;
  history: Pick<History, 'replaceState' | 'state'>;
}

export function takeServeToken(env: PageEnv | undefined = browserEnv()): string | null {
  if (env === undefined) return null;
  const { location, sessionStorage, history } = env;
  const hash = new URLSearchParams(location.hash.replace(/^#/, ''));
  const search = new URLSearchParams(location.search);
  const fromUrl = hash.get('token') ?? search.get('token');
  if (fromUrl !== null && fromUrl !== '') {
    try {
      sessionStorage.setItem(KEY, fromUrl);
    } catch {
      return fromUrl; // storage refused (private mode quota): this page load still works
    }
    hash.delete('token');
    search.delete('token');
    const rest = (params: URLSearchParams, mark: string) => (params.size > 0 ? mark + params.toString() : '');
    history.replaceState(history.state, '', location.pathname + rest(search, '?') + rest(hash, '#'));
  }
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

function browserEnv(): PageEnv | undefined {
  const g = globalThis as Partial<PageEnv>;
  return g.location !== undefined && g.sessionStorage !== undefined && g.history !== undefined ? (g as PageEnv) : undefined;
}
