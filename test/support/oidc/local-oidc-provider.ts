import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { exportJWK, generateKeyPair, type JWK } from 'jose';

export interface OidcTestProfile {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
}

async function signingKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'RS256', use: 'sig' };
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/**
 * A local OpenID Connect provider (the `oidc-provider` package) in a child process on a fixed port, so that it
 * can be restarted with new signing keys (key rotation) at the same issuer URL.
 */
export class LocalOidcProvider {
  readonly clientId = 'platform-test-client';
  readonly clientSecret = `secret-${randomUUID()}`;
  private child: ChildProcess | null = null;
  private port = 0;
  private redirectUris: string[] = [];
  private attacker: JWK | null = null;
  /** The kid of the key currently signing ID tokens. */
  currentKid = '';

  get issuer() {
    return `http://127.0.0.1:${this.port}`;
  }

  /** `127.0.0.1:<port>`, as SSO_ALLOWED_HOSTS names it. */
  get host() {
    return `127.0.0.1:${this.port}`;
  }

  /** Picks the port before start(), so that a platform can be configured with it before it knows its redirect URIs. */
  async reserve() {
    if (!this.port) this.port = await freePort();
    return this;
  }

  async start(redirectUris: string[]) {
    await this.reserve();
    this.redirectUris = redirectUris;
    this.attacker = await signingKey();
    await this.launch(await signingKey());
  }

  /** Restarts with a new signing key only: tokens from now on carry a `kid` the relying party has not seen. */
  async rotateKeys() {
    await this.stop();
    await this.launch(await signingKey());
  }

  async signInAs(profile: OidcTestProfile) {
    await this.send({ type: 'profile', profile });
  }

  /** How many HTTP requests the provider answered since it (re)started. */
  async requestCount(): Promise<number> {
    return (await this.send({ type: 'count' })).requests ?? 0;
  }

  /** The next token response carries an ID token edited after signing, or signed with a key not in the JWKS. */
  async tamperNextIdToken(mode: 'payload' | 'foreign-key') {
    await this.send({ type: 'tamper', mode });
  }

  async stop() {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill();
    });
  }

  private async launch(key: JWK) {
    this.currentKid = key.kid!;
    const child = fork(join(__dirname, 'provider-process.mjs'), [], {
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        OIDC_PORT: String(this.port),
        OIDC_JWKS: JSON.stringify([key]),
        OIDC_ATTACKER_JWK: JSON.stringify(this.attacker),
        OIDC_CLIENT_ID: this.clientId,
        OIDC_CLIENT_SECRET: this.clientSecret,
        OIDC_REDIRECT_URIS: JSON.stringify(this.redirectUris),
      },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr?.on('data', (d) => (stderr += String(d)));
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`OIDC provider exited (${code}): ${stderr}`)));
    });
  }

  private send(message: Record<string, unknown>) {
    const child = this.child;
    if (!child) throw new Error('OIDC provider is not running');
    const id = randomUUID();
    return new Promise<{ requests?: number }>((resolve) => {
      const onMessage = (m: { type: string; id?: string; requests?: number }) => {
        if (m.id !== id) return;
        child.off('message', onMessage);
        resolve(m);
      };
      child.on('message', onMessage);
      child.send({ ...message, id });
    });
  }
}

/** A browser: follows redirects by hand, keeping the provider's cookies, until the platform's callback. */
export async function browseTo(start: string, stopAt: string): Promise<URL> {
  const cookies = new Map<string, string>();
  let url = new URL(start);
  for (let hop = 0; hop < 10; hop++) {
    if (url.href.startsWith(stopAt)) return url;
    const r = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const c of r.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const location = r.headers.get('location');
    if (!location) throw new Error(`${url.href} answered ${r.status} without a redirect: ${await r.text()}`);
    url = new URL(location, url);
  }
  throw new Error('too many redirects');
}
