import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

export interface FakeProfile {
  sub: string;
  email: string;
  email_verified: boolean;
  name?: string;
}

export interface TokenExchange {
  code: string;
  /** True when sha256(code_verifier) matched the code_challenge of the authorization request. */
  pkceVerified: boolean;
  status: number;
}

interface IssuedCode {
  challenge: string;
  redirectUri: string;
  nonce: string | null;
  profile: FakeProfile;
}

/**
 * A local OpenID Connect provider shaped like Google: discovery, a JWKS, the authorization endpoint (consent
 * is automatic and signs in as `nextProfile`), the token endpoint (checks client credentials, basic or post,
 * the redirect URI and the PKCE verifier; codes work once; answers with an RS256 ID token carrying the
 * request's nonce) and the userinfo endpoint.
 */
export class FakeGoogle {
  readonly clientId = 'fake-client-id.apps.example.test';
  readonly clientSecret = 'fake-client-secret';
  nextProfile: FakeProfile = { sub: 'google-0', email: 'nobody@example.com', email_verified: true, name: 'Nobody' };
  readonly exchanges: TokenExchange[] = [];
  /** Tests: the next ID tokens carry a broken signature, or a nonce other than the authorization request's. */
  idTokenFault: 'none' | 'signature' | 'nonce' = 'none';
  private readonly codes = new Map<string, IssuedCode>();
  private readonly accessTokens = new Map<string, FakeProfile>();
  private server?: Server;
  private signingKey?: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  private publicJwk?: JWK;
  private readonly kid = `fake-google-${randomBytes(4).toString('hex')}`;
  url = '';

  async start(): Promise<this> {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    this.signingKey = privateKey;
    this.publicJwk = { ...(await exportJWK(publicKey)), kid: this.kid, alg: 'RS256', use: 'sig' };
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Where discovery sends the browser (Google's path). */
  get authorizationEndpoint(): string {
    return `${this.url}/o/oauth2/v2/auth`;
  }

  get env(): Record<string, string> {
    // The identity flow's requests go through the SSRF guard: the local provider is named as an internal one.
    return {
      GOOGLE_CLIENT_ID: this.clientId,
      GOOGLE_CLIENT_SECRET: this.clientSecret,
      GOOGLE_ISSUER_URL: this.url,
      SSO_ALLOWED_HOSTS: new URL(this.url).host,
    };
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private json(res: ServerResponse, status: number, body: unknown) {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  /** client_secret_basic (form-encoded id and secret in the Authorization header) or client_secret_post. */
  private clientOf(req: IncomingMessage, form: URLSearchParams): { id: string | null; secret: string | null } {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    if (!basic) return { id: form.get('client_id'), secret: form.get('client_secret') };
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const at = decoded.indexOf(':');
    const unform = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: unform(decoded.slice(0, at)), secret: unform(decoded.slice(at + 1)) };
  }

  private async idToken(issued: IssuedCode): Promise<string> {
    const { profile } = issued;
    const token = await new SignJWT({
      email: profile.email,
      email_verified: profile.email_verified,
      name: profile.name,
      nonce: this.idTokenFault === 'nonce' ? 'another-sign-in' : (issued.nonce ?? undefined),
    })
      .setProtectedHeader({ alg: 'RS256', kid: this.kid, typ: 'JWT' })
      .setIssuer(this.url)
      .setAudience(this.clientId)
      .setSubject(profile.sub)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(this.signingKey!);
    if (this.idTokenFault !== 'signature') return token;
    const [header, payload, signature] = token.split('.');
    return `${header}.${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', this.url);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');

    if (req.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      return this.json(res, 200, {
        issuer: this.url,
        authorization_endpoint: this.authorizationEndpoint,
        token_endpoint: `${this.url}/token`,
        userinfo_endpoint: `${this.url}/v1/userinfo`,
        jwks_uri: `${this.url}/oauth2/v3/certs`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        scopes_supported: ['openid', 'email', 'profile'],
        token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
        code_challenge_methods_supported: ['plain', 'S256'],
      });
    }

    if (req.method === 'GET' && url.pathname === '/oauth2/v3/certs') return this.json(res, 200, { keys: [this.publicJwk] });

    if (req.method === 'GET' && url.pathname === '/o/oauth2/v2/auth') {
      const q = url.searchParams;
      if (q.get('client_id') !== this.clientId) return this.json(res, 400, { error: 'invalid_client' });
      if (q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge') || !q.get('state')) {
        return this.json(res, 400, { error: 'invalid_request' });
      }
      const code = randomBytes(12).toString('hex');
      this.codes.set(code, {
        challenge: q.get('code_challenge')!,
        redirectUri: q.get('redirect_uri')!,
        nonce: q.get('nonce'),
        profile: { ...this.nextProfile },
      });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state')!);
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }

    if (req.method === 'POST' && url.pathname === '/token') {
      const form = new URLSearchParams(body);
      const code = form.get('code') ?? '';
      const issued = this.codes.get(code);
      this.codes.delete(code); // a code works once
      const verifier = form.get('code_verifier') ?? '';
      const pkceVerified = !!issued && createHash('sha256').update(verifier).digest('base64url') === issued.challenge;
      const fail = (status: number, error: string) => {
        this.exchanges.push({ code, pkceVerified, status });
        this.json(res, status, { error });
      };
      const client = this.clientOf(req, form);
      if (client.id !== this.clientId || client.secret !== this.clientSecret) return fail(401, 'invalid_client');
      if (form.get('grant_type') !== 'authorization_code' || !issued) return fail(400, 'invalid_grant');
      if (form.get('redirect_uri') !== issued.redirectUri) return fail(400, 'invalid_grant');
      if (!pkceVerified) return fail(400, 'invalid_grant');
      const accessToken = randomBytes(16).toString('hex');
      this.accessTokens.set(accessToken, issued.profile);
      this.exchanges.push({ code, pkceVerified, status: 200 });
      return this.json(res, 200, {
        access_token: accessToken,
        id_token: await this.idToken(issued),
        token_type: 'Bearer',
        expires_in: 3599,
        scope: 'openid email profile',
      });
    }

    if (req.method === 'GET' && url.pathname === '/v1/userinfo') {
      const profile = this.accessTokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!profile) return this.json(res, 401, { error: 'invalid_token' });
      return this.json(res, 200, profile);
    }
    this.json(res, 404, { error: 'not_found' });
  }
}
