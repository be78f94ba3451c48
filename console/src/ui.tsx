import type { ComponentChildren, JSX } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

import { PlatformError } from '../../sdk';
import { BASE, navigate } from './router';

/** A message for the operator from any failure: the platform's own message when it sent one. */
export function describeError(e: unknown): string {
  if (e instanceof PlatformError) {
    const wait = e.retryAfterSeconds ? ` Try again in ${e.retryAfterSeconds} s.` : '';
    return `${e.message}${e.code ? ` (${e.code})` : ''}${wait}`;
  }
  return e instanceof Error ? e.message : String(e);
}

export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {describeError(error)}
    </p>
  );
}

/** Loads data for a page; `reload` fetches again after a change. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
): { data: T | undefined; error: unknown; loading: boolean; reload(): void } {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { data: state.data, error: state.error, loading: state.loading, reload: useCallback(() => setTick((t) => t + 1), []) };
}

/** Runs an action from a form or button, tracking busy and error for the UI. */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<unknown>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (...args: A) => {
    setBusy(true);
    setError(null);
    try {
      await action(...args);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error };
}

let firstPage = true;

/**
 * A page: its heading receives focus after an in-app navigation so screen readers announce the new page. Not
 * on the first page of a load, where the browser's own start (the skip link first) is what keyboard users expect.
 */
export function Page({ title, children }: { title: string; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Agent Platform console`;
    if (firstPage) firstPage = false;
    else heading.current?.focus();
  }, [title]);
  return (
    <>
      <h1 tabIndex={-1} ref={heading}>
        {title}
      </h1>
      {children}
    </>
  );
}

/** An in-app link: a real href (open in a new tab works) that navigates without a reload. */
export function Link({ to, children, ...rest }: { to: string; children: ComponentChildren } & JSX.HTMLAttributes<HTMLAnchorElement>) {
  return (
    <a
      {...rest}
      href={BASE + to}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

export function Field({ label, children, hint }: { label: string; children: ComponentChildren; hint?: string }) {
  return (
    <label class="field">
      <span>{label}</span>
      {children}
      {hint ? <small>{hint}</small> : null}
    </label>
  );
}

export const formatDate = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

/** Reads a submitted form's named fields as strings. */
export function formValues(e: Event): Record<string, string> {
  e.preventDefault();
  const form = e.currentTarget as HTMLFormElement;
  return Object.fromEntries([...new FormData(form).entries()].map(([k, v]) => [k, String(v)]));
}
