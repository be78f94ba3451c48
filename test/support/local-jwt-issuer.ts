import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { exportJWK, exportSPKI, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

export interface IssuerKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  pair: KeyPair;
  jwk: JWK;
}

/**
 * An external token issuer on 127.0.0.1: an OpenID discovery document and a JWKS publishing `published` keys
 * (tests rotate them), and `sign` to mint tokens with any of its keys, published or not.
 */
export class LocalJwtIssuer {
  url = '';
  published: IssuerKey[] = [];
  /** How many times the JWKS was downloaded. */
  jwksDownloads = 0;
  private server?: Server;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const send = (body: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.url === '/.well-known/openid-configuration') return send({ issuer: this.url, jwks_uri: `${this.url}/keys` });
      if (req.url === '/keys') {
        this.jwksDownloads++;
        return send({ keys: this.published.map((k) => k.jwk) });
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async newKey(alg: 'RS256' | 'ES256', kid: string): Promise<IssuerKey> {
    const pair = await generateKeyPair(alg, { extractable: true });
    return { kid, alg, pair, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg, use: 'sig' } };
  }

  /** A token signed by `key`; claims default to this issuer, `audience`, an hour of validity. */
  sign(key: IssuerKey, claims: JWTPayload & Record<string, unknown>, audience: string): Promise<string> {
    return new SignJWT({ iss: this.url, aud: audience, ...claims })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
      .setIssuedAt()
      .setExpirationTime(typeof claims.exp === 'number' ? claims.exp : '1h')
      .sign(key.pair.privateKey);
  }

  /** The key's public half as PEM (what an HS256-with-public-key forgery uses as its secret). */
  publicPem(key: IssuerKey): Promise<string> {
    return exportSPKI(key.pair.publicKey);
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}
