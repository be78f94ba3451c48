import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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
  profile: FakeProfile;
}

/**
 * A local OpenID Connect provider speaking Google's authorization-code flow with PKCE (S256): the
 * authorization endpoint (consent is automatic and signs in as `nextProfile`), the token endpoint (checks
 * client credentials, redirect URI and the PKCE verifier; codes work once) and the userinfo endpoint.
 */
export class FakeGoogle {
  readonly clientId = 'fake-client-id.apps.example.test';
  readonly clientSecret = 'fake-client-secret';
  nextProfile: FakeProfile = { sub: 'google-0', email: 'nobody@example.com', email_verified: true, name: 'Nobody' };
  readonly exchanges: TokenExchange[] = [];
  private readonly codes = new Map<string, IssuedCode>();
  private readonly accessTokens = new Map<string, FakeProfile>();
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  get env(): Record<string, string> {
    return {
      GOOGLE_CLIENT_ID: this.clientId,
      GOOGLE_CLIENT_SECRET: this.clientSecret,
      GOOGLE_AUTH_URL: `${this.url}/o/oauth2/v2/auth`,
      GOOGLE_TOKEN_URL: `${this.url}/token`,
      GOOGLE_USERINFO_URL: `${this.url}/v1/userinfo`,
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

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', this.url);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');

    if (req.method === 'GET' && url.pathname === '/o/oauth2/v2/auth') {
      const q = url.searchParams;
      if (q.get('client_id') !== this.clientId) return this.json(res, 400, { error: 'invalid_client' });
      if (q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge') || !q.get('state')) {
        return this.json(res, 400, { error: 'invalid_request' });
      }
      const code = randomBytes(12).toString('hex');
      this.codes.set(code, { challenge: q.get('code_challenge')!, redirectUri: q.get('redirect_uri')!, profile: { ...this.nextProfile } });
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
      if (form.get('client_id') !== this.clientId || form.get('client_secret') !== this.clientSecret) return fail(401, 'invalid_client');
      if (form.get('grant_type') !== 'authorization_code' || !issued) return fail(400, 'invalid_grant');
      if (form.get('redirect_uri') !== issued.redirectUri) return fail(400, 'invalid_grant');
      if (!pkceVerified) return fail(400, 'invalid_grant');
      const accessToken = randomBytes(16).toString('hex');
      this.accessTokens.set(accessToken, issued.profile);
      this.exchanges.push({ code, pkceVerified, status: 200 });
      return this.json(res, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: 3599, scope: 'openid email profile' });
    }

    if (req.method === 'GET' && url.pathname === '/v1/userinfo') {
      const profile = this.accessTokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!profile) return this.json(res, 401, { error: 'invalid_token' });
      return this.json(res, 200, profile);
    }
    this.json(res, 404, { error: 'not_found' });
  }
}
