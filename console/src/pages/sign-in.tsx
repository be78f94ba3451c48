import { useState } from 'preact/hooks';

import { api } from '../api';
import { ErrorNotice, Field, formValues, Page, useAction } from '../ui';

/** Sign in with the JWT surface (POST /api/auth/login), or create an account and organization (register). */
export function SignInPage({ onSignedIn }: { onSignedIn(): void }) {
  const [mode, setMode] = useState<'sign-in' | 'register'>('sign-in');
  const action = useAction(async (v: Record<string, string>) => {
    if (mode === 'register')
      await api.register({ email: v.email!, password: v.password!, displayName: v.displayName!, organizationName: v.organizationName! });
    else await api.login(v.email!, v.password!);
    onSignedIn();
  });
  return (
    <Page title={mode === 'register' ? 'Create an account' : 'Sign in'}>
      <form class="card" onSubmit={(e) => void action.run(formValues(e))}>
        {mode === 'register' ? (
          <>
            <Field label="Your name">
              <input name="displayName" required autoComplete="name" />
            </Field>
            <Field label="Organization name">
              <input name="organizationName" required autoComplete="organization" />
            </Field>
          </>
        ) : null}
        <Field label="Email">
          <input name="email" type="email" required autoComplete="email" />
        </Field>
        <Field label="Password">
          <input name="password" type="password" required autoComplete={mode === 'register' ? 'new-password' : 'current-password'} />
        </Field>
        <ErrorNotice error={action.error} />
        <button type="submit" class="primary" disabled={action.busy}>
          {mode === 'register' ? 'Create account' : 'Sign in'}
        </button>
      </form>
      <p>
        {mode === 'register' ? 'Already have an account? ' : 'New here? '}
        <button type="button" class="link" onClick={() => setMode(mode === 'register' ? 'sign-in' : 'register')}>
          {mode === 'register' ? 'Sign in' : 'Create an account'}
        </button>
      </p>
    </Page>
  );
}
