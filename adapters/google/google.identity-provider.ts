import type { ExternalProfile, OAuthIdentityProvider } from '../../core/identity/google-sign-in';
import { DomainError } from '../../core/shared/errors';

export interface GoogleOptions {
  clientId: string;
  clientSecret: string;
  authUrl: string;
  tokenUrl: string;
  userInfoUrl: string;
  /** Injectable transport (tests pass their own); defaults to global fetch. */
  fetch?: typeof fetch;
}

/** Google's OpenID Connect endpoints, or any server speaking the same protocol (tests use a local fake). */
export class GoogleIdentityProvider implements OAuthIdentityProvider {
  readonly id = 'google';
  private readonly fetch: typeof fetch;
  constructor(private readonly options: GoogleOptions) {
    this.fetch = options.fetch ?? fetch;
  }

  authorizationUrl({ state, codeChallenge, redirectUri }: { state: string; codeChallenge: string; redirectUri: string }) {
    const url = new URL(this.options.authUrl);
    url.search = new URLSearchParams({
      client_id: this.options.clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid email profile',
      state,
      code_challenge: codeChallenge,
      code_challenge_method: 'S256',
      prompt: 'select_account',
    }).toString();
    return url.toString();
  }

  async exchangeCode({
    code,
    codeVerifier,
    redirectUri,
  }: {
    code: string;
    codeVerifier: string;
    redirectUri: string;
  }): Promise<ExternalProfile> {
    const tokenRes = await this.fetch(this.options.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        code_verifier: codeVerifier,
        redirect_uri: redirectUri,
        client_id: this.options.clientId,
        client_secret: this.options.clientSecret,
      }).toString(),
      signal: AbortSignal.timeout(10_000),
    });
    if (!tokenRes.ok) throw new DomainError('AUTHENTICATION_FAILED', `Google refused the sign-in code (${tokenRes.status})`);
    const tokens = (await tokenRes.json()) as { access_token?: string };
    if (!tokens.access_token) throw new DomainError('AUTHENTICATION_FAILED', 'Google returned no access token');
    const infoRes = await this.fetch(this.options.userInfoUrl, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
      signal: AbortSignal.timeout(10_000),
    });
    if (!infoRes.ok) throw new DomainError('UPSTREAM_FAILED', `Google user info failed (${infoRes.status})`);
    const info = (await infoRes.json()) as { sub?: string; email?: string; email_verified?: boolean | string; name?: string };
    if (!info.sub || !info.email) throw new DomainError('AUTHENTICATION_FAILED', 'Google returned no subject or email');
    return {
      subject: info.sub,
      email: info.email,
      emailVerified: info.email_verified === true || info.email_verified === 'true',
      name: info.name ?? null,
    };
  }
}
