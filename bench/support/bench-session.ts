import { EMPTY_BODY_DIGEST, signIdentity } from '../../core/identity/gateway-signature';

/** Nonce registry that accepts repeats: the direct baseline replays one pre-signed request (autocannon cannot sign each). */
export const acceptRepeats = { id: 'bench-accept-repeats', claim: async () => true, close: async () => undefined };

/**
 * Registers a user through the gateway and returns the headers of GET `pathname` both ways: the bearer token
 * for the gateway, and the gateway's signed identity for calling the api directly (signed when called).
 */
export async function benchSession(gatewayUrl: string, internalSecret: string, pathname: string, password = 'bench-password-1') {
  const reg = await fetch(`${gatewayUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', password }),
  });
  const session = (await reg.json()) as {
    data: { accessToken: string; user: { id: string; email: string; organizations: { id: string }[] } };
  };
  const user = session.data.user;
  return {
    gatewayHeaders: { authorization: `Bearer ${session.data.accessToken}` },
    directHeaders: () =>
      signIdentity(
        internalSecret,
        {
          userId: user.id,
          organizationId: user.organizations[0]!.id,
          email: user.email,
          platformRole: 'user',
          orgRole: 'owner',
          apiKeyId: null,
          apiKeyScopes: [],
          clientIp: '127.0.0.1',
          tokenVersion: 0,
        },
        { method: 'GET', url: pathname, bodyDigest: EMPTY_BODY_DIGEST, nowMs: Date.now(), nonce: '0'.repeat(32) },
      ),
  };
}

/** Registers `email` through the gateway and creates an API key with `scopes`: the key's bearer header and the user's token. */
export async function apiKeySession(
  gatewayUrl: string,
  email: string,
  scopes: string[],
): Promise<{ auth: { authorization: string }; accessToken: string }> {
  const reg = await fetch(`${gatewayUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'bench-password' }),
  });
  const session = (await reg.json()) as { data: { accessToken: string } };
  const made = await fetch(`${gatewayUrl}/api/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${session.data.accessToken}` },
    body: JSON.stringify({ name: 'bench', scopes }),
  });
  const key = ((await made.json()) as { key: string }).key;
  return { auth: { authorization: `Bearer ${key}` }, accessToken: session.data.accessToken };
}
