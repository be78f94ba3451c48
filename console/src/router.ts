import { useEffect, useState } from 'preact/hooks';

/** The console lives under /console; routes are the rest of the path ('/agents/…'). */
export const BASE = '/console';

export function currentRoute(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return path.replace(/\/+$/, '') || '/';
}

export function navigate(route: string): void {
  history.pushState(null, '', BASE + route);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function useRoute(): string {
  const [route, setRoute] = useState(currentRoute());
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  return route;
}

/** `/agents/:id` against `/agents/42` → {id: '42'}; null when it does not match. */
export function match(pattern: string, route: string): Record<string, string> | null {
  const p = pattern.split('/');
  const r = route.split('/');
  if (p.length !== r.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i]!.startsWith(':')) params[p[i]!.slice(1)] = decodeURIComponent(r[i]!);
    else if (p[i] !== r[i]) return null;
  }
  return params;
}
