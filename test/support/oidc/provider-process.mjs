// A real OpenID Connect provider (oidc-provider) for tests, run as a child process (it is ESM-only and needs
// no transpiling this way). The parent drives it over IPC: who signs in next, and whether to tamper with the
// ID token of the next token response. Keys come from OIDC_JWKS, so the parent can restart it with new keys.
import { createServer } from 'node:http';

import { base64url, importJWK, SignJWT } from 'jose';
import Provider from 'oidc-provider';

const port = Number(process.env.OIDC_PORT);
const issuer = `http://127.0.0.1:${port}`;
const keys = JSON.parse(process.env.OIDC_JWKS);
const attackerKey = JSON.parse(process.env.OIDC_ATTACKER_JWK);
let nextProfile = null;
let tamper = null;
/** HTTP requests this process answered (discovery, JWKS, token, ...): tests see whether the platform called it. */
let requests = 0;
const profiles = new Map();

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: process.env.OIDC_CLIENT_ID,
      client_secret: process.env.OIDC_CLIENT_SECRET,
      redirect_uris: JSON.parse(process.env.OIDC_REDIRECT_URIS),
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  jwks: { keys },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
  pkce: { required: () => true },
  features: { devInteractions: { enabled: false } },
  cookies: { keys: ['test-cookie-key'] },
  findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id, ...profiles.get(id) }) }),
});

const encode = (value) => base64url.encode(JSON.stringify(value));
const decode = (segment) => JSON.parse(new TextDecoder().decode(base64url.decode(segment)));

/** Changes the ID token after it was signed: a claim edited under the old signature, or re-signed with another key. */
async function tampered(idToken) {
  const [header, payload, signature] = idToken.split('.');
  const claims = decode(payload);
  if (tamper === 'payload') return `${header}.${encode({ ...claims, sub: 'someone-else' })}.${signature}`;
  const key = await importJWK(attackerKey, 'RS256');
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: decode(header).kid }).sign(key);
}

provider.use(async (ctx, next) => {
  // The login and consent screens, answered at once for the profile the parent chose.
  if (ctx.path.startsWith('/interaction/')) {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const { sub, ...claims } = nextProfile;
    profiles.set(sub, claims);
    const grant = new provider.Grant({ accountId: sub, clientId: details.params.client_id });
    grant.addOIDCScope(details.params.scope);
    const grantId = await grant.save();
    await provider.interactionFinished(
      ctx.req,
      ctx.res,
      { login: { accountId: sub }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  await next();
  if (ctx.path === '/token' && tamper && ctx.body?.id_token) {
    ctx.body = { ...ctx.body, id_token: await tampered(ctx.body.id_token) };
    tamper = null;
  }
});

process.on('message', (m) => {
  if (m.type === 'profile') nextProfile = m.profile;
  if (m.type === 'tamper') tamper = m.mode;
  process.send({ type: 'ack', id: m.id, requests });
});

const callback = provider.callback();
const server = createServer((req, res) => {
  requests++;
  callback(req, res);
});
server.listen(port, '127.0.0.1', () => process.send({ type: 'ready', issuer }));
